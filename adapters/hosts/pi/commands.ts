import type { ExtensionAPI, ExtensionCommandContext } from '@mariozechner/pi-coding-agent';
import { formatStatus, statusReport } from '../../../core/actions/status-action.ts';
import { FoldError } from '../../../core/fold-error.ts';
import { requestModel } from './context-hook.ts';
import { openFoldEditor } from './fold-editor.ts';
import { foldViewCommand } from './fold-view-command.ts';
import { formatOwnershipWarnings } from './ownership-monitor.ts';
import type { PiSessionRegistry } from './session-registry.ts';
import { parseSettingsArguments, updateSettingsFile } from './settings-file.ts';

/**
 * The human's surface (docs/behaviour.md B6.3): `/fold`, `/fold-status`, `/fold-settings`,
 * `/fold-editor`, `/fold-view`.
 */
export function registerFoldCommands(pi: ExtensionAPI, registry: PiSessionRegistry): void {
  pi.registerCommand('fold', {
    description: 'Commit every pending fold at the next request (or only the given mark ids)',
    handler: async (args, ctx) => {
      const folding = await registry.forSession(ctx.sessionManager);
      const ids = args
        .trim()
        .split(/\s+/)
        .filter((id) => id.length > 0);
      const marks = folding.runtime.view.memory.marks;
      const unknown = ids.filter((id) => !marks.some((mark) => mark.id === id));
      if (unknown.length > 0) {
        ctx.ui.notify(
          `/fold: ${unknown.join(', ')} ${unknown.length === 1 ? 'is not a pending mark' : 'are not pending marks'} (see /fold-status); nothing was requested`,
          'error',
        );
        return;
      }
      if (marks.length === 0) {
        ctx.ui.notify('/fold: there are no pending marks to commit', 'info');
        return;
      }
      folding.runtime.requestCommit('user-fold', ids.length > 0 ? ids : undefined);
      const count = ids.length > 0 ? ids.length : marks.length;
      ctx.ui.notify(
        `/fold: ${count} pending mark${count === 1 ? '' : 's'} will land in one rewrite at the next request`,
        'info',
      );
    },
  });

  pi.registerCommand('fold-status', {
    description: 'Show the fold budget, occupancy, pending marks, visible folds and pins',
    handler: async (args, ctx) => {
      const folding = await registry.forSession(ctx.sessionManager);
      const detail = args.trim() === 'tree' ? 'tree' : 'summary';
      // Asked before this process's first request: the budget comes from the model in use.
      folding.runtime.expectRequests(requestModel(ctx));
      ctx.ui.notify(
        formatStatus(statusReport(folding.runtime.view, detail)) + formatOwnershipWarnings(folding.ownership.warnings),
        'info',
      );
    },
  });

  pi.registerCommand('fold-view', {
    description:
      'Write an HTML page of this session (prompt sizes, commits, folds, exact sources, search) and print its path',
    handler: async (_args, ctx) => {
      await foldViewCommand(ctx, registry);
    },
  });

  pi.registerCommand('fold-settings', {
    description: 'Show or change pi-fold thresholds, e.g. /fold-settings maxTarget=0.75 minTarget=0.35',
    handler: async (args, ctx) => {
      await foldSettingsCommand(args, ctx, registry);
    },
  });

  pi.registerCommand('fold-editor', {
    description: 'Interactive map of the window: folds, marks and pins; expand, peek, mark, unmark, pin',
    handler: async (_args, ctx) => {
      if (!ctx.hasUI) {
        ctx.ui.notify('/fold-editor needs the interactive terminal; use /fold-status here', 'warning');
        return;
      }
      const folding = await registry.forSession(ctx.sessionManager);
      await openFoldEditor(ctx, folding.runtime);
    },
  });
}

async function foldSettingsCommand(
  args: string,
  ctx: ExtensionCommandContext,
  registry: PiSessionRegistry,
): Promise<void> {
  const inCode = registry.codeThresholds;
  if (inCode !== undefined) {
    // Code wins over the file; writing the file would change nothing, so nothing is written.
    const refusal =
      args.trim().length === 0
        ? ''
        : '\n/fold-settings refused, nothing written: thresholds set in code win over the file, so a change there would not apply';
    ctx.ui.notify(
      `pi-fold settings: thresholds set in code by registerPiFold (the settings file ${registry.settingsPath} is not used for them)\nthresholds ${JSON.stringify(inCode)}${refusal}`,
      args.trim().length === 0 ? 'info' : 'error',
    );
    return;
  }
  const file = await registry.reloadSettings();
  const current = file.thresholds;
  if (args.trim().length === 0) {
    const state =
      file.status === 'invalid'
        ? `the file is invalid and was left alone; defaults apply. Reason: ${file.reason}`
        : file.status === 'missing'
          ? 'no file yet; defaults apply'
          : file.status === 'migrated'
            ? `migrated from an older release (${file.reason})`
            : 'loaded';
    ctx.ui.notify(
      `pi-fold settings (${file.path}): ${state}\nthresholds ${JSON.stringify(current)}\nchange with /fold-settings maxTarget=0.75 minTarget=0.35 consolidateAfter=10 minFoldChars=8000`,
      file.status === 'invalid' ? 'warning' : 'info',
    );
    return;
  }
  if (file.status === 'invalid') {
    ctx.ui.notify(
      `/fold-settings refused, nothing written: ${file.path} is invalid (${file.reason}); fix or delete it first so no value of yours is lost`,
      'error',
    );
    return;
  }
  try {
    const thresholds = await updateSettingsFile(file.path, current, parseSettingsArguments(args));
    await registry.reloadSettings();
    // A runtime's settings are fixed when it opens; reopen so the new band applies from the next request.
    await registry.close(ctx.sessionManager.getSessionId());
    ctx.ui.notify(`pi-fold settings saved to ${file.path}: ${JSON.stringify(thresholds)}`, 'info');
  } catch (error) {
    const message = FoldError.isInstance(error) ? error.message : String(error);
    ctx.ui.notify(`/fold-settings refused, nothing written: ${message}`, 'error');
  }
}
