// Firefox ESR (Debian's package) through puppeteer-core, which speaks WebDriver BiDi to the
// stock browser: no geckodriver, no browser download.
import puppeteer from "puppeteer-core";
import { killGroup } from "./processes.mjs";

/** A browser with one page: `goto(url)`, `evaluate(fn, arg)`, `version`, `close()`. */
export async function start(timeout) {
  const browser = await puppeteer.launch({
    browser: "firefox",
    headless: true,
    executablePath: process.env.FIREFOX ?? "/usr/bin/firefox-esr",
    timeout,
  });
  // close() asks the browser to quit; if it does not, kill its process group (puppeteer
  // starts it detached, as the leader of one).
  const kill = () => browser.process() && killGroup(browser.process());
  const close = () => {
    const killer = setTimeout(kill, 5000);
    return browser.close().catch(kill).finally(() => clearTimeout(killer));
  };
  try {
    const page = await browser.newPage();
    return {
      version: (await browser.version()).replace("/", " "),
      goto: (url) => page.goto(url, { timeout }),
      evaluate: (fn, arg) => page.evaluate(fn, arg),
      close,
    };
  } catch (e) {
    await close();
    throw e;
  }
}
