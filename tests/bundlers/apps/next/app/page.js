// A server component: citeflow runs in the server render (the package's node entry, bundled
// by Next.js), references included; the client component below runs it in the browser.
import * as citeflow from "citeflow";
import { coreResults, referenceText } from "../scenario.js";
import Client from "./client.js";

export const dynamic = "force-dynamic";

export default async function Page() {
  const { core } = coreResults(citeflow);
  const references = await referenceText(citeflow);
  return (
    <main>
      <p id="server-core">{core}</p>
      <pre id="server-references">{references}</pre>
      <Client />
    </main>
  );
}
