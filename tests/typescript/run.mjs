#!/usr/bin/env node
// The package's types as a TypeScript user compiles them: a strict project with Next.js's
// default `lib` (no "dom.asynciterable"), importing `citeflow` as installed, compiled with
// `bundler` (module esnext) and `node16` resolution, each by TypeScript 7 and TypeScript 6.
// It holds the checks beside this file (events.ts, references.ts, models.ts) and every code
// block of README.md that imports citeflow, extracted now into tests/out/typescript/readme/ (a
// `js` block as a JavaScript file, checked with checkJs; a `ts` block as TypeScript). A block
// that imports citeflow in any other language, or that does not compile, fails the run; its
// errors are shown at their README.md line.
//
//   node tests/typescript/run.mjs [--readme=path/to/README.md]
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const readmeArg = process.argv.find((a) => a.startsWith("--readme="));
const readmePath = readmeArg ? readmeArg.slice("--readme=".length) : join(root, "README.md");
const out = join(root, "tests/out/typescript/readme");
const compilers = [
  ["TypeScript 7", join(root, "node_modules/typescript-7/bin/tsc")],
  ["TypeScript 6", join(root, "node_modules/typescript/bin/tsc")],
];
const projects = ["bundler", "node16"];
const extensions = { js: "js", javascript: "js", mjs: "js", ts: "ts", typescript: "ts", mts: "ts" };
const importsCiteflow = /(?:\bfrom\s*|\bimport\s*\(?\s*|\brequire\s*\(\s*)["']citeflow(?:\/[^"']*)?["']/;

/** The fenced code blocks of a markdown text, each with its info string and first line. */
function codeBlocks(markdown) {
  const blocks = [];
  const lines = markdown.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([^\s`]*)/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, info] = open;
    const body = [];
    let j = i + 1;
    for (; j < lines.length && !lines[j].trimStart().startsWith(fence); j++) {
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j]);
    }
    blocks.push({ info: info.toLowerCase(), firstLine: i + 2, text: body.join("\n") });
    i = j;
  }
  return blocks;
}

const failures = [];
const blocks = codeBlocks(readFileSync(readmePath, "utf8")).filter((b) => importsCiteflow.test(b.text));
if (blocks.length === 0) failures.push(`${readmePath}: no code block imports citeflow (is the extraction broken?)`);
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });
/** README line of each written file's first line, to show errors where the reader sees them. */
const origins = new Map();
for (const block of blocks) {
  const ext = extensions[block.info];
  if (!ext) {
    failures.push(
      `README.md:${block.firstLine - 1}: a \`${
        block.info || "plain"
      }\` block imports citeflow; only js and ts blocks can be compiled`,
    );
    continue;
  }
  const name = `readme-line-${block.firstLine}.${ext}`;
  writeFileSync(join(out, name), `${block.text}\n`);
  origins.set(name, block.firstLine);
}

/** tsc's output with each error in an extracted block pointed at its README.md line. */
const atReadmeLines = (text) =>
  text.replace(
    /(?:[^\s(]*\/)?(readme-line-\d+\.[jt]s)\((\d+),(\d+)\)/g,
    (_, name, line, col) => `README.md:${origins.get(name) + Number(line) - 1}:${col}`,
  );

/** Each distinct compiler output, with the runs that gave it (the same errors are shown once). */
const outputs = new Map();
for (const [compiler, tsc] of compilers) {
  for (const project of projects) {
    const config = relative(root, join(root, `tests/typescript/tsconfig.${project}.json`));
    try {
      execFileSync(process.execPath, [tsc, "-p", config, "--pretty", "false"], { cwd: root, encoding: "utf8" });
    } catch (error) {
      const text = atReadmeLines(`${error.stdout}${error.stderr}`).trim();
      outputs.set(text, [...(outputs.get(text) ?? []), `${compiler} with ${project} resolution (${config})`]);
    }
  }
}
for (const [text, runs] of outputs) failures.push(`${runs.join(";\n")}:\n${text}`);

if (failures.length > 0) {
  console.error(failures.join("\n\n"));
  process.exit(1);
}
console.log(
  `typescript: ${blocks.length} README blocks and the checks compile with ${
    compilers.map(([c]) => c).join(" and ")
  }, bundler and node16 resolution`,
);
