/** The lab's reports: the seeds' table, the cost split, the cost/recovery front, CSV, stable JSON, HTML charts and a progress bar. */
export type { ArmName, ArmResult, FoldArmSettings, LabRun, LabRunSettings, ProbeScore, RecoveryCalls, RequestRow, WindowEvent, WorkingSetScore } from './lab-records.ts';
export { armTimings, percentile, summarizeArm, type ArmSummary, type ArmTimings, type RecoverySummary } from './arm-summary.ts';
export { formatArmTable, formatRatio } from './arm-table.ts';
export { armCostSplit, COST_SPLIT_PARTS, requestCostSplit, type CostSplit } from './cost-split.ts';
export { costRecoveryFront, DEFAULT_ARM, type CostRecoveryFront, type FrontPoint } from './cost-front.ts';
export { renderHtmlReport, requestSizeChart, priceBoundaryTokens } from './html-report.ts';
export { costSplitCsv, requestRowsCsv, stableSummaryJson, writeLabReports, type LabReportOptions, type LabReportPaths } from './report-files.ts';
export { createProgressBar, type ProgressBar, type ProgressStream } from './progress-bar.ts';
