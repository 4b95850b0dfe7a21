// Loaded first by the test pages: records the page's uncaught errors, rejections and failed
// loads in window.__pageErrors, for drivers that have no console or error stream (WebDriver).
// Firefox and WebKit leave the message out of error.stack, so both are kept.
window.__pageErrors = [];
window.__describeError = (e) => {
  if (!(e instanceof Error) || !e.stack) return String(e);
  return e.stack.startsWith(String(e)) ? e.stack : `${e}\n${e.stack}`;
};
window.addEventListener("error", (event) => {
  const { target } = event;
  const where = target.src || target.href || `an inline <${target.localName}>`;
  window.__pageErrors.push(
    target === window
      ? window.__describeError(event.error ?? event.message)
      : `failed to load ${where} or a module it imports`,
  );
}, true);
window.addEventListener(
  "unhandledrejection",
  (event) => window.__pageErrors.push(window.__describeError(event.reason)),
);
