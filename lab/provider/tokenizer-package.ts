/**
 * The tokenizer the lab and `pi-fold replay` count wire tokens with, named once: the install
 * hints and the reports' captions both read it, and a test holds it to the version the
 * project itself installs (package.json, devDependencies).
 */
export const TOKENIZER_PACKAGE = 'gpt-tokenizer';
export const TOKENIZER_VERSION = '4.0.0';
