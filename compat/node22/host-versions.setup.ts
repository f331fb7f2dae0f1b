import { VERSION } from '@mariozechner/pi-coding-agent';
import { AI_SDK_MAJOR, MIDDLEWARE_SPECIFICATION } from '../../adapters/hosts/vercel-ai/ai-sdk-version.ts';

// Runs before every test file of the compatibility job: a mapping that silently fell back to
// the root's Pi 0.x or ai@6 would pass the suites without testing the current hosts.
// 1.x by default; the Pi install PI_FOLD_PI_HOST names (e.g. 0.87.1) when the job runs on another one.
const expectedPi = process.env.PI_FOLD_EXPECTED_PI ?? '1.';
if (!VERSION.startsWith(expectedPi))
  throw new Error(
    `compat: expected Pi ${expectedPi}${expectedPi.endsWith('.') ? 'x' : ''} behind the @mariozechner aliases, loaded ${VERSION}`,
  );
if (AI_SDK_MAJOR !== 7 || MIDDLEWARE_SPECIFICATION !== 'v4')
  throw new Error(`compat: expected ai@7 (V4 middleware), loaded ai@${AI_SDK_MAJOR}`);
if (Number(process.versions.node.split('.')[0]) < 22)
  throw new Error(`compat: expected Node 22, running ${process.version}`);
