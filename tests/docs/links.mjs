// What a browser opening the site from file:// would follow: every `href` and `src` of every
// HTML page (script bodies left out: they hold templates, not links), each checked to resolve
// to a file of the site, and its `#fragment` to an element of that page.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, relative } from "node:path";

/** Every file under `dir`, as paths relative to it. */
export function filesUnder(dir) {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => relative(dir, join(e.parentPath, e.name)));
}

const withoutScripts = (html) =>
  html.replace(/<script\b[^>]*>[\s\S]*?<\/script>/gi, (tag) => tag.replace(/>[\s\S]*$/, ">"));

/** The `href` and `src` values of a page's tags, entities decoded. */
export function linksOf(html) {
  const links = [];
  for (const tag of withoutScripts(html).matchAll(/<[a-z][^>]*>/gi)) {
    for (const m of tag[0].matchAll(/\s(?:href|src)\s*=\s*(?:"([^"]*)"|'([^']*)')/gi)) {
      links.push((m[1] ?? m[2]).replace(/&amp;/g, "&").replace(/&quot;/g, '"').replace(/&#39;/g, "'"));
    }
  }
  return links;
}

/**
 * A Rust path written as a link target (`Stream::poll_next`): rustdoc renders a dependency's
 * doc comment (a trait's provided methods, shown on our types that implement it) with the
 * intra-doc links it could not resolve left as written. The crate's own are refused by
 * `RUSTDOCFLAGS=-D warnings`.
 */
const RUST_PATH = /^[A-Za-z_]\w*(?:::\w+)+$/;

/** Links that leave the site: to another host, or by a scheme no file:// page resolves. */
const EXTERNAL = /^(?:[a-z][a-z0-9+.-]*:|\/\/)/i;

/**
 * Checks the site in `dir`. Returns `{ pages, links, external, broken, rustPaths }`: `external`
 * lists the links to other hosts by page (none may be a script, stylesheet, image or font: the
 * site opens offline), `broken` the relative links that resolve to nothing, as
 * `page → link (why)`, and `rustPaths` the dependencies' unresolved links (`RUST_PATH`).
 */
export function checkSite(dir) {
  const pages = filesUnder(dir).filter((f) => f.endsWith(".html"));
  const ids = new Map();
  const idsOf = (file) => {
    if (!ids.has(file)) {
      const html = readFileSync(file, "utf8");
      ids.set(file, new Set([...html.matchAll(/\s(?:id|name)\s*=\s*"([^"]*)"/g)].map((m) => m[1])));
    }
    return ids.get(file);
  };
  const broken = [];
  const external = [];
  const rustPaths = [];
  let links = 0;
  for (const page of pages) {
    const file = join(dir, page);
    const html = readFileSync(file, "utf8");
    for (
      const resource of html.matchAll(
        /<(?:script|img|link|source|iframe)\b[^>]*\s(?:src|href)="((?:https?:)?\/\/[^"]*)"/gi,
      )
    ) {
      if (!/<a\b/i.test(resource[0])) broken.push(`${page} → ${resource[1]} (a resource from another host)`);
    }
    for (const link of linksOf(html)) {
      links++;
      if (RUST_PATH.test(link) && page.startsWith("rust/")) {
        rustPaths.push(`${page} → ${link}`);
        continue;
      }
      if (EXTERNAL.test(link)) {
        if (/^(?:https?:)?\/\//i.test(link)) external.push(`${page} → ${link}`);
        else if (!/^(?:mailto|javascript):/i.test(link)) broken.push(`${page} → ${link} (scheme)`);
        continue;
      }
      if (link.startsWith("/")) {
        broken.push(`${page} → ${link} (absolute path)`);
        continue;
      }
      const [pathPart, fragment] = link.split("#", 2);
      const path = decodeURIComponent(pathPart.split("?")[0]);
      let target = path === "" ? file : join(dirname(file), path);
      if (existsSync(target) && statSync(target).isDirectory()) target = join(target, "index.html");
      if (!existsSync(target)) {
        broken.push(`${page} → ${link} (no such file)`);
        continue;
      }
      // rustdoc's source pages select lines (`#12-30`) with script, not anchors.
      const lines = /^\d+(-\d+)?$/.test(fragment ?? "");
      const found = (id) => idsOf(target).has(id) || idsOf(target).has(decodeURIComponent(id));
      if (fragment && !lines && target.endsWith(".html") && !found(fragment)) {
        broken.push(`${page} → ${link} (no such anchor)`);
      }
    }
  }
  return { pages: pages.length, links, external, broken, rustPaths };
}
