/** The lab's reports: the seeds' table, the cost split, the cost/recovery front, CSV, stable JSON, HTML charts and a progress bar. */

export {
  type ArmSummary,
  type ArmTimings,
  armTimings,
  percentile,
  type RecoverySummary,
  summarizeArm,
} from './arm-summary.ts';
export { formatArmTable, formatRatio } from './arm-table.ts';
export { type CostRecoveryFront, costRecoveryFront, DEFAULT_ARM, type FrontPoint } from './cost-front.ts';
export { armCostSplit, COST_SPLIT_PARTS, type CostSplit, requestCostSplit } from './cost-split.ts';
export { priceBoundaryTokens, renderHtmlReport, requestSizeChart } from './html-report.ts';
export type {
  ArmName,
  ArmResult,
  FoldArmSettings,
  LabRun,
  LabRunSettings,
  ProbeScore,
  RecoveryCalls,
  RequestRow,
  WindowEvent,
  WorkingSetScore,
} from './lab-records.ts';
export { createProgressBar, type ProgressBar, type ProgressStream } from './progress-bar.ts';
export {
  costSplitCsv,
  type LabReportOptions,
  type LabReportPaths,
  requestRowsCsv,
  stableSummaryJson,
  writeLabReports,
} from './report-files.ts';
