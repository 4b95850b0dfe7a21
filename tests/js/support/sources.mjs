// The two sources the Citeformer tests cite (water boiling, ice floating): retrieval chunks
// whose metadata is a CSL item, one shared copy.
export const sources = [
  {
    content: "Water boils at 100 degrees Celsius at sea level.",
    metadata: {
      id: "boil",
      type: "webpage",
      title: "Boiling point of water",
      URL: "https://example.org/boil",
      issued: { "date-parts": [[2021]] },
      author: [{ literal: "Example Org" }],
    },
  },
  {
    content: "Ice is less dense than liquid water, so it floats.",
    metadata: {
      id: "ice",
      type: "article-journal",
      title: "Why ice floats",
      author: [{ family: "Frost", given: "Jack" }],
      "container-title": "Cold Science",
      issued: { "date-parts": [[2019]] },
    },
  },
];
