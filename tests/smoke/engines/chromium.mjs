// Chromium (Debian's package) through playwright-core, headless, with the flags this machine's
// closed network needs.
import { chromium } from "playwright-core";

const ARGS = [
  "--headless=new",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export function launch(timeout) {
  return chromium.launch({ executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium", args: ARGS, timeout });
}

/** A browser with one page: `goto(url)`, `evaluate(fn, arg)`, `version`, `close()`. */
export async function start(timeout) {
  const browser = await launch(timeout);
  try {
    const page = await browser.newPage();
    return {
      version: `chromium ${browser.version()}`,
      goto: (url) => page.goto(url, { timeout }),
      evaluate: (fn, arg) => page.evaluate(fn, arg),
      close: () => browser.close(),
    };
  } catch (e) {
    await browser.close();
    throw e;
  }
}
