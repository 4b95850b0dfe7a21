"use client";
// The chat: useChat posts to /api/chat and keeps each answer's parts as they stream in.
import { useChat } from "@ai-sdk/react";
import { useState } from "react";
import { CitedText } from "./cited-text.jsx";
import { References } from "./references.jsx";

export default function Chat() {
  const { messages, sendMessage, status, error } = useChat();
  const [input, setInput] = useState("");
  const busy = status === "submitted" || status === "streaming";
  const ask = (event) => {
    event.preventDefault();
    if (!input.trim()) return;
    sendMessage({ text: input });
    setInput("");
  };
  return (
    <main data-status={status}>
      <h1>Cited chat</h1>
      {messages.map((m) => <Message key={m.id} message={m} />)}
      {error && <p role="alert">{error.message}</p>}
      <form onSubmit={ask}>
        <label htmlFor="question">Question</label>
        <input id="question" value={input} onChange={(e) => setInput(e.target.value)} />
        <button type="submit" disabled={busy}>Ask</button>
      </form>
    </main>
  );
}

function Message({ message }) {
  if (message.role === "user") {
    return <p className="question">{message.parts.map((p) => p.type === "text" ? p.text : "").join("")}</p>;
  }
  return (
    <article className="answer">
      {message.parts.map((part, i) => {
        if (part.type === "reasoning") {
          // Open while the model thinks, closed once its reasoning is done.
          return (
            <details key={i} className="reasoning" open={part.state === "streaming"}>
              <summary>Reasoning</summary>
              {part.text}
            </details>
          );
        }
        if (part.type === "text") return <CitedText key={i} part={part} />;
        return null;
      })}
      <References parts={message.parts} />
    </article>
  );
}
