// A text part with each citation marker shown as a chip: the marker's own text (part.text
// sliced at the citation's startIndex/endIndex), a link to its reference, the source's title
// shown on hover and keyboard focus.
import { sourceNumber, sourceTitle } from "./sources.js";

export function CitedText({ part }) {
  // A marker naming several sources ([1, 2]) has one citation per source, all with its span.
  const spans = new Map();
  for (const c of part.citations ?? []) {
    if (c.startIndex === undefined || c.endIndex === undefined) continue;
    const key = `${c.startIndex}:${c.endIndex}`;
    if (!spans.has(key)) spans.set(key, { start: c.startIndex, end: c.endIndex, sources: [] });
    spans.get(key).sources.push(c.source);
  }
  const pieces = [];
  let at = 0;
  for (const { start, end, sources } of [...spans.values()].sort((a, b) => a.start - b.start)) {
    if (start < at) continue;
    pieces.push(part.text.slice(at, start));
    const marker = part.text.slice(start, end);
    const tip = sources.map((s) => `${sourceNumber(s)}. ${sourceTitle(s)}`).join("; ");
    pieces.push(
      <a
        key={start}
        className="chip"
        href={`#ref-${sourceNumber(sources[0])}`}
        data-tip={tip}
        aria-label={`${marker} ${tip}`}
      >
        {marker}
      </a>,
    );
    at = end;
  }
  pieces.push(part.text.slice(at));
  return <p className="text">{pieces}</p>;
}
