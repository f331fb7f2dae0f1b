/** The lab's reports: the seeds' table, CSV, stable JSON, HTML charts and a progress bar. */
export type { ArmName, ArmResult, LabRun, LabRunSettings, ProbeScore, RequestRow, WindowEvent } from './lab-records.ts';
export { armTimings, percentile, summarizeArm, type ArmSummary, type ArmTimings } from './arm-summary.ts';
export { formatArmTable, formatRatio } from './arm-table.ts';
export { renderHtmlReport, requestSizeChart, priceBoundaryTokens } from './html-report.ts';
export { requestRowsCsv, stableSummaryJson, writeLabReports, type LabReportOptions, type LabReportPaths } from './report-files.ts';
export { createProgressBar, type ProgressBar, type ProgressStream } from './progress-bar.ts';
