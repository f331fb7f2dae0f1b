// Consumer check (b2): an extension built on pi-fold/pi, typed against the installed package's
// .d.ts files and whichever Pi line the check links into the project (0.x or 1.x). Must pass.
import piFoldExtension, { type PiFoldOptions, type PiFoldRegistration, registerPiFold } from 'pi-fold/pi';

/** Pi's ExtensionAPI, as pi-fold's declarations name it for the installed Pi. */
type HostApi = Parameters<typeof piFoldExtension>[0];

const options: PiFoldOptions = { settings: { providerInputBudget: 50_000 } };

export default function myExtension(pi: HostApi): PiFoldRegistration {
  return registerPiFold(pi, options);
}

// The declarations must keep Pi's own types: were ExtensionAPI `any` (an unresolved Pi import),
// this directive would be unused and tsc would fail.
// @ts-expect-error a number is not Pi's ExtensionAPI
piFoldExtension(42);
