//! Hostile input: arbitrary strings, byte soup and arbitrary JSON (nested up to 128 levels,
//! the bound the JS binding enforces) into every public parse, scan, check and render
//! function of the core. Each returns a value or an error; none may panic, because in the
//! release wasm a panic aborts and takes the instance down with it.

use citeflow::chunk::{
    chunks_from_value, context_text, format_chunk_as_string, format_references_as_string, Chunk,
    ContextConfig, MetadataMap,
};
use citeflow::cite::{
    check_policy, citation_grammar, deduplicate_adjacent_cites, lexical_entailment,
    parse_citations, render_cited_html, split_sentences, verify_plan, CitationParser, CiteOptions,
    GrammarFormat, GrammarOptions, ListedReference, MarkerLink, MarkerStyle, ParseOptions, Policy,
};
use citeflow::event::{items_from_events, Event, LmOutput};
use citeflow::filter::{
    cosine_scores, decision_batch, decision_scores, fill_template, formatter_context,
    formatter_kept, preset, reference_label, relevance_chunk_text, relevance_results, DecisionKind,
};
use citeflow::transform::{
    event_types, extract_json_object, think_tag_options, validation_options,
    EventFilterOutputTransformer, OutputTransformer, OutputTransformerConfig, TagPair,
    ThinkTagOptions, ThinkTagOutputTransformer,
};
use citeflow::utf16::{byte_offset, Utf16Cursor};
use proptest::prelude::*;
use serde_json::{Map, Number, Value};

#[path = "support/streams.rs"]
mod streams;
use streams::{cases, piece};

/// The deepest JSON the JS binding lets through.
const MAX_DEPTH: usize = 128;

// ---------------------------------------------------------------------------------------
// Strategies

/// Pieces that mean something to some parser in the core.
const SHARP: &[&str] = &[
    "[",
    "]",
    "(",
    ")",
    "{",
    "}",
    "{{",
    "}}",
    "^",
    "1",
    "0",
    "42",
    "4294967296",
    "99999999999999999999",
    ",",
    ";",
    " ",
    "-",
    "–",
    ".",
    "!",
    "?",
    "\"",
    "“",
    "”",
    "'",
    "`",
    "```",
    "~~~",
    "\n",
    "\n\n",
    "://",
    "http://",
    "https://x.y",
    ":",
    "é",
    "😀",
    "\u{a0}",
    "\u{3000}",
    "\u{200b}",
    "\u{feff}",
    "\r",
    "\t",
    "\0",
    "<think>",
    "</think>",
    "<",
    ">",
    "&",
    "Dr.",
    "e.g.",
    "[1]",
    "[^2]",
    "(3)",
    "{4}",
    "^5",
    "[1-3]",
    "[2, 99999999999]",
    "{context_json}",
    "{metadata}",
    "{content}",
    "{id}",
    "{query}",
    "\\",
];

/// Sentence-like text: words, punctuation and every kind of space (one-, two- and
/// three-byte), so sentence and quote logic meets multi-byte neighbours.
fn prose() -> impl Strategy<Value = String> {
    let word = prop::sample::select(
        &[
            "Dr",
            "e.g",
            "A",
            "b",
            "1",
            "é",
            "😀",
            "[1]",
            "[99999999999]",
            "\"Q\"",
            "“Q”",
            "(A",
            "'x",
            "^2",
            "{3}",
            "(4)",
        ][..],
    );
    let punct = prop::sample::select(&["", "", ".", "!", "?", ",", ".\"", "…"][..]);
    let space = prop::sample::select(
        &[
            " ", " ", "\u{a0}", "\u{3000}", "\u{2003}", "\n", "\t", "\u{85}",
        ][..],
    );
    prop::collection::vec((word, punct, space), 0..16).prop_map(|v| {
        v.into_iter()
            .map(|(w, p, s)| format!("{w}{p}{s}"))
            .collect()
    })
}

/// Text: from the sharp alphabet, sentence-like, arbitrary Unicode, or byte soup read
/// leniently.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::collection::vec(piece(SHARP), 0..48).prop_map(|v| v.concat()),
        3 => prose(),
        2 => any::<String>(),
        1 => prop::collection::vec(any::<u8>(), 0..96)
            .prop_map(|b| String::from_utf8_lossy(&b).into_owned()),
    ]
}

fn key() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => prop::sample::select(&[
            "type", "content", "metadata", "id", "title", "file_name", "file_url", "author",
            "editor", "issued", "accessed", "date-parts", "raw", "literal", "family", "given",
            "URL", "DOI", "custom", "container-title", "page", "results", "is_relevant",
            "explanation", "output", "outputs", "noul", "instructions", "criteria", "question",
            "tags", "open", "close", "eventTypes", "event_types", "requiredTypes", "mode",
            "startInThinking", "idPrefix", "kwargs", "markerStyle", "sourceCount", "policy",
            "maxContentChars", "format", "fields", "metadataKeys", "template", "score",
            "additionalContext", "value", "valueType",
        ][..]).prop_map(str::to_owned),
        1 => text(),
    ]
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_map(|f| Number::from_f64(f).map_or(Value::Null, Value::Number)),
        prop::sample::select(
            &[
                "book",
                "article-journal",
                "webpage",
                "noul",
                "structured",
                "text",
                "think_tag",
                "event_filter",
                "json",
                "identity",
                "validation",
                "bracket",
                "paren",
                "caret",
                "required",
                "quotes_only",
                "gbnf",
                "regex",
                "json_schema",
                "all",
                "any",
                "2020-05-17",
                "1e999",
                "-0",
                "",
            ][..]
        )
        .prop_map(Value::from),
        text().prop_map(Value::String),
    ]
}

/// A small JSON tree.
fn shallow() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            prop::collection::vec((key(), inner), 0..5)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// A small tree at the bottom of a chain of arrays and objects, up to [`MAX_DEPTH`] deep.
fn json() -> impl Strategy<Value = Value> {
    prop_oneof![
        3 => shallow(),
        1 => (shallow(), 0..=MAX_DEPTH - 5, any::<u128>(), key()).prop_map(|(mut v, depth, bits, k)| {
            for level in 0..depth {
                v = if bits >> (level % 128) & 1 == 1 {
                    Value::Array(vec![v])
                } else {
                    Value::Object(Map::from_iter([(k.clone(), v)]))
                };
            }
            v
        }),
    ]
}

fn object() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::vec((key(), json()), 0..6).prop_map(|kv| kv.into_iter().collect())
}

fn parse_options() -> impl Strategy<Value = ParseOptions> {
    (
        prop::sample::select(MarkerStyle::ALL.to_vec()),
        prop_oneof![
            Just(None),
            (0u32..8).prop_map(Some),
            any::<u32>().prop_map(Some)
        ],
    )
        .prop_map(|(marker_style, source_count)| ParseOptions {
            marker_style,
            source_count,
        })
}

fn span() -> impl Strategy<Value = usize> {
    prop_oneof![0usize..64, any::<usize>()]
}

fn chunk() -> impl Strategy<Value = Chunk> {
    (
        prop::option::of(text()),
        text(),
        object(),
        prop::collection::vec(json(), 0..3),
        prop::option::of(any::<f64>()),
    )
        .prop_map(|(id, content, metadata, additional_context, score)| Chunk {
            id,
            content,
            metadata,
            additional_context,
            score,
        })
}

fn context_config() -> impl Strategy<Value = ContextConfig> {
    let field = prop_oneof![
        3 => prop::sample::select(&[
            "metadata", "content", "id", "additionalContext", "additional_context", "score",
        ][..]).prop_map(str::to_owned),
        1 => text(),
    ];
    (
        prop::collection::vec(field, 0..4),
        prop::option::of(prop::collection::vec(key(), 0..4)),
        text(),
    )
        .prop_map(|(fields, metadata_keys, template)| ContextConfig {
            fields,
            metadata_keys,
            template,
        })
}

fn event() -> impl Strategy<Value = Event> {
    (
        prop::option::of(text()),
        prop_oneof![
            3 => prop::sample::select(&[
                "response", "response_start", "response_end", "thinking", "thinking_start",
                "thinking_end", "structured", "citation", "status", "_start", "_end", "",
            ][..]).prop_map(str::to_owned),
            1 => text(),
        ],
        json(),
        prop::collection::vec((key(), shallow()), 0..3)
            .prop_map(|kv| kv.into_iter().collect::<Map<String, Value>>()),
        any::<bool>(),
    )
        .prop_map(|(id, kind, value, extra, as_json)| {
            let mut e = if as_json {
                Event::json(&kind, id, value)
            } else {
                Event::text(&kind, id, value.as_str().unwrap_or("text"))
            };
            e.extra = extra;
            e
        })
}

/// Pushes every event, finishes, then misuses the finished machine: errors, never panics.
fn drive(t: &mut dyn OutputTransformer, events: &[Event]) {
    for e in events {
        let _ = t.push(e.clone());
    }
    let _ = t.finish();
    let _ = t.push(Event::response("late"));
    let _ = t.finish();
    let _ = t.ensure_open();
}

// ---------------------------------------------------------------------------------------
// Citations

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    #[test]
    fn citation_functions_take_anything(text in text(), options in parse_options(), policy in prop::sample::select(Policy::ALL.to_vec())) {
        let units: Vec<u16> = text.encode_utf16().collect();
        for c in parse_citations(&text, options) {
            let marker = String::from_utf16(&units[c.span[0]..c.span[1]]).unwrap();
            prop_assert_eq!(marker, c.marker);
            prop_assert!(!c.valid || (c.source_id >= 1 && options.source_count.is_none_or(|n| c.source_id <= n)));
        }
        let _ = deduplicate_adjacent_cites(&text, options.marker_style);
        let report = check_policy(&text, policy, options);
        for s in &report.sentences {
            prop_assert!(s.span[0] <= s.span[1] && s.span[1] <= units.len());
        }
        for r in split_sentences(&text) {
            prop_assert!(text.get(r).is_some());
        }
        let plan = verify_plan(&text, options);
        for claim in &plan.claims {
            let _ = lexical_entailment(&text, &claim.hypothesis);
        }
    }

    #[test]
    fn lexical_entailment_takes_anything(a in text(), b in text()) {
        let score = lexical_entailment(&a, &b);
        prop_assert!((0.0..=1.0).contains(&score));
    }

    #[test]
    fn citation_parser_takes_any_events(options in parse_options(), events in prop::collection::vec(event(), 0..8)) {
        drive(&mut CitationParser::new(options), &events);
        let mut p = CitationParser::new(options);
        let _ = p.transform(LmOutput::from_text(events.iter().filter_map(Event::text_value).collect::<String>()));
    }

    #[test]
    fn cited_html_takes_any_spans(
        text in text(),
        markers in prop::collection::vec((any::<u32>(), span(), span(), any::<bool>()), 0..6),
        refs in prop::collection::vec((any::<u32>(), text()), 0..4),
        prefix in text(),
    ) {
        let markers: Vec<MarkerLink> = markers
            .into_iter()
            .map(|(source_id, a, b, valid)| MarkerLink { source_id, span: [a, b], valid })
            .collect();
        let refs: Vec<ListedReference> = refs
            .into_iter()
            .map(|(source_id, entry)| ListedReference { source_id, entry })
            .collect();
        let html = render_cited_html(&text, &markers, &refs, &prefix);
        prop_assert!(!html.contains("<script"));
    }

    #[test]
    fn grammars_take_any_options(
        policy in prop::sample::select(Policy::ALL.to_vec()),
        marker_style in prop::sample::select(MarkerStyle::ALL.to_vec()),
        source_count in prop_oneof![0u32..40, any::<u32>()],
        max_content_chars in prop_oneof![0usize..300, any::<usize>()],
        format in prop::sample::select(vec![GrammarFormat::Gbnf, GrammarFormat::Regex, GrammarFormat::JsonSchema]),
    ) {
        let options = GrammarOptions { policy, marker_style, source_count, max_content_chars, format, ..Default::default() };
        match citation_grammar(options) {
            Ok(g) => prop_assert!(!g.is_empty()),
            Err(e) => prop_assert!(["NO_SOURCES", "INVALID_OPTION"].contains(&e.code())),
        }
    }

    #[test]
    fn citation_options_take_any_map(map in object(), name in text()) {
        if let Ok(o) = CiteOptions::from_map(&map) {
            let _ = o.parse_options();
            if let Ok(g) = o.grammar_options() {
                // A count from outside never builds an unbounded grammar.
                let _ = citation_grammar(g);
            }
        }
        let _ = MarkerStyle::parse(&name);
        let _ = Policy::parse(&name);
        let _ = GrammarFormat::parse(&name);
    }
}

// ---------------------------------------------------------------------------------------
// Transformers and events

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    #[test]
    fn configs_take_any_json(value in json(), events in prop::collection::vec(event(), 0..6)) {
        if let Ok(config) = OutputTransformerConfig::from_value(&value) {
            let _ = config.to_value();
            let mut t = config.build().unwrap();
            drive(t.as_mut(), &events);
        }
        if let Value::Object(map) = &value {
            let _ = think_tag_options(map);
            let _ = event_types(map);
            let _ = validation_options(map);
        }
        let _: Result<LmOutput, _> = serde_json::from_value(value.clone());
        let _: Result<Event, _> = serde_json::from_value(value);
    }

    #[test]
    fn think_tags_take_any_tags_and_text(
        tags in prop::collection::vec((text(), text()), 0..4),
        start_in_thinking in any::<bool>(),
        chunks in prop::collection::vec(text(), 0..6),
    ) {
        let options = ThinkTagOptions {
            tags: tags.into_iter().map(|(o, c)| TagPair::new(o, c)).collect(),
            start_in_thinking,
            id_prefix: None,
        };
        if let Ok(mut t) = ThinkTagOutputTransformer::new(options) {
            let _ = t.splitter().trigger_chars();
            for c in &chunks {
                let _ = t.push_text(c);
            }
            let _ = t.finish_ops();
            let _ = t.transform(LmOutput::from_text(chunks.concat()));
        }
    }

    #[test]
    fn event_functions_take_anything(events in prop::collection::vec(event(), 0..8), kinds in prop::collection::vec(text(), 0..4), text in text()) {
        let _ = items_from_events(&events);
        if let Ok(mut f) = EventFilterOutputTransformer::new(&kinds) {
            drive(&mut f, &events);
        }
        let _ = extract_json_object(&text);
    }
}

#[test]
fn json_extraction_survives_deep_nesting() {
    for depth in [127, 128, 129, 10_000, 100_000] {
        let text = format!("{}{}", "{\"a\":".repeat(depth), "}".repeat(depth));
        let _ = extract_json_object(&text);
        let text = format!("{}{}", "{".repeat(depth), "}".repeat(depth));
        assert!(extract_json_object(&text).is_none());
    }
}

// ---------------------------------------------------------------------------------------
// Chunks, context rendering, relevance

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    #[test]
    fn chunks_and_context_take_anything(
        value in json(),
        chunk in chunk(),
        config in context_config(),
        config_json in json(),
        title in key(),
        url in key(),
        items in prop::collection::vec(text(), 0..5),
    ) {
        let _ = Chunk::from_value(value.clone(), 0);
        let _ = chunks_from_value(value);
        let _ = config.validate();
        let _ = config.render(&chunk);
        let _ = context_text(&chunk, Some(&config));
        if let Ok(cfg) = serde_json::from_value::<ContextConfig>(config_json) {
            let _ = cfg.render(&chunk);
        }
        let _ = format_chunk_as_string(&chunk, &MetadataMap { title, url });
        let _ = format_chunk_as_string(&chunk, &MetadataMap::default());
        let _ = format_references_as_string(&items);
    }

    #[test]
    fn relevance_functions_take_anything(
        chunks in prop::collection::vec(chunk(), 0..4),
        config in prop::option::of(context_config()),
        keys in prop::option::of(prop::collection::vec(key(), 0..3)),
        chunk_format in prop::option::of(text()),
        template in text(),
        vars in prop::collection::vec((text(), text()), 0..4),
        answer in json(),
        label_key in key(),
        start in span(),
        expected in span(),
        question in prop::option::of(json()),
        query in text(),
    ) {
        let vars: Vec<(&str, &str)> = vars.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
        let _ = fill_template(&template, &vars);
        for (i, c) in chunks.iter().enumerate() {
            let _ = relevance_chunk_text(c, keys.as_deref(), chunk_format.as_deref(), config.as_ref());
            let _ = reference_label(c, &label_key, start.wrapping_add(i));
        }
        let labels = formatter_context(&chunks, &label_key, start, config.as_ref())
            .map(|(_, labels)| labels)
            .unwrap_or_default();
        let _ = formatter_kept(&answer, &label_key, &labels);
        let _ = relevance_results(&answer, expected);
        let texts: Vec<String> = chunks.iter().map(|c| c.content.clone()).collect();
        for kind in [DecisionKind::Filter, DecisionKind::Formatter] {
            if let Ok(batch) = decision_batch(kind, &query, &texts, start, question.as_ref()) {
                let names: Vec<String> = batch["names"]
                    .as_array()
                    .map(|a| a.iter().filter_map(|n| n.as_str().map(str::to_owned)).collect())
                    .unwrap_or_default();
                let _ = decision_scores(&answer, &names);
            }
        }
        let _ = preset(&query);
    }

    #[test]
    fn cosine_takes_any_floats(
        query in prop::collection::vec(prop_oneof![any::<f32>(), -2.0f32..2.0], 0..9),
        matrix in prop::collection::vec(prop_oneof![any::<f32>(), -2.0f32..2.0], 0..40),
    ) {
        if let Ok(scores) = cosine_scores(&query, &matrix) {
            for s in scores {
                prop_assert!((-1.0..=1.0).contains(&s));
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// UTF-16 offsets and HTML

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    #[test]
    fn utf16_offsets_take_any_position(text in text(), positions in prop::collection::vec(span(), 0..8)) {
        let units = text.encode_utf16().count();
        let mut cursor = Utf16Cursor::new(&text);
        for &p in &positions {
            prop_assert!(cursor.to_utf16(p) <= units);
            if let Some(b) = byte_offset(&text, p) {
                prop_assert!(text.is_char_boundary(b));
            }
        }
        let escaped = citeflow::html::escape(&text);
        prop_assert!(!escaped.contains('<') && !escaped.contains('"'));
        let _ = citeflow::html::is_safe_url(&text);
    }
}

// ---------------------------------------------------------------------------------------
// References (CSL): metadata is checked before it reaches the engine.

#[cfg(feature = "csl")]
mod csl {
    use super::*;
    use citeflow::reference::{render_references, RenderOptions, StyleSource};

    /// CSL-JSON-ish metadata: real field names, mostly with values of the right shape but
    /// any content (so most reach the engine), sometimes with values of any shape.
    fn source() -> impl Strategy<Value = Value> {
        let scalar_field = prop::sample::select(
            &[
                "title",
                "container-title",
                "page",
                "volume",
                "issue",
                "URL",
                "DOI",
                "publisher",
                "id",
                "note",
                "edition",
                "number",
                "genre",
                "language",
                "abstract",
                "collection-title",
                "publisher-place",
                "citation-label",
            ][..],
        );
        let name_field =
            prop::sample::select(&["author", "editor", "translator", "container-author"][..]);
        let date_field =
            prop::sample::select(&["issued", "accessed", "original-date", "event-date"][..]);
        let any_field =
            prop::sample::select(&["type", "title", "author", "issued", "custom", "page"][..]);
        let scalar = prop_oneof![
            6 => text().prop_map(Value::String),
            1 => any::<i64>().prop_map(Value::from),
            1 => any::<f64>().prop_map(|f| Number::from_f64(f).map_or(Value::Null, Value::Number)),
        ];
        let name = prop_oneof![
            4 => (text(), text()).prop_map(|(f, g)| serde_json::json!({"family": f, "given": g})),
            2 => text().prop_map(|l| serde_json::json!({"literal": l})),
            1 => (text(), text(), text(), any::<bool>()).prop_map(|(f, g, p, c)| serde_json::json!({
                "family": f, "given": g, "non-dropping-particle": p, "comma-suffix": c,
            })),
            1 => json(),
        ];
        // Date parts near and past every edge: zero and negative years, months and days
        // out of range, seasons (21-24), ranges, and numbers of any size.
        let part = prop_oneof![
            4 => -40000i64..40000,
            2 => prop::sample::select(&[0i64, -1, 1, 12, 13, 21, 24, 25, 31, 32, 99, 9999, 10000, -32768, 32767][..]),
            1 => any::<i64>(),
        ];
        let date = prop_oneof![
            4 => prop::collection::vec(prop::collection::vec(part, 1..4), 1..3)
                .prop_map(|parts| serde_json::json!({"date-parts": parts})),
            1 => prop::collection::vec(prop::collection::vec(any::<i64>(), 0..4), 0..3)
                .prop_map(|parts| serde_json::json!({"date-parts": parts})),
            2 => text().prop_map(|raw| serde_json::json!({"raw": raw})),
            1 => text().prop_map(|l| serde_json::json!({"literal": l})),
            1 => json(),
        ];
        let field = prop_oneof![
            6 => (scalar_field, scalar),
            3 => (name_field, prop::collection::vec(name, 0..4).prop_map(Value::Array)),
            3 => (date_field, date),
            1 => (any_field, json()),
        ];
        (
            prop::sample::select(
                &[
                    "book",
                    "article-journal",
                    "webpage",
                    "chapter",
                    "report",
                    "thesis",
                    "legal_case",
                    "song",
                ][..],
            ),
            prop::collection::vec(field, 0..8),
            any::<bool>(),
        )
            .prop_map(|(kind, fields, wrapped)| {
                let mut item: Map<String, Value> =
                    fields.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
                item.entry("type").or_insert_with(|| Value::from(kind));
                let item = Value::Object(item);
                if wrapped {
                    serde_json::json!({"content": "x", "metadata": item})
                } else {
                    item
                }
            })
    }

    /// Found by `references_take_any_metadata`: the engine panicked ("ranges are not
    /// supported") on any date range, in every style.
    #[test]
    fn a_date_range_renders_its_start() {
        let source = serde_json::json!({"type": "book", "issued": {"date-parts": [[0], [0]]}});
        let range = serde_json::json!({
            "type": "book", "title": "T", "author": [{"family": "F"}],
            "issued": {"date-parts": [[2020, 5], [2021, 6]]},
            "event-date": {"raw": "2020-05-17/2020-05-19"},
        });
        for style in citeflow::reference::bundled_style_names() {
            let options = RenderOptions {
                style: StyleSource::Name(style.to_owned()),
                ..RenderOptions::default()
            };
            render_references(std::slice::from_ref(&source), None, &options).unwrap();
            let refs = render_references(std::slice::from_ref(&range), None, &options).unwrap();
            assert!(refs[0].entry.contains("2020"), "{style}: {}", refs[0].entry);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(cases(48)))]

        #[test]
        fn references_take_any_metadata(
            sources in prop::collection::vec(source(), 1..3),
            cited in prop::option::of(prop::collection::vec(any::<u32>(), 0..4)),
            style in prop::sample::select(&["apa-7", "ieee", "vancouver", "mla", "chicago"][..]),
            html in any::<bool>(),
        ) {
            let options = RenderOptions {
                style: StyleSource::Name(style.to_owned()),
                format: if html { citeflow::reference::RefFormat::Html } else { citeflow::reference::RefFormat::Text },
                ..RenderOptions::default()
            };
            let _ = render_references(&sources, cited.as_deref(), &options);
        }
    }
}
