"""all-MiniLM-L6-v2 (a BERT encoder as fp32 safetensors, with its WordPiece tokenizer.json) to a
GGUF file llama.cpp loads as an embedding model: the sentence-transformers mean pooling is
written into the file, so an embedding request returns the sentence vector directly.

    python minilm_to_gguf.py MODEL_DIR OUT.gguf

MODEL_DIR holds config.json, tokenizer.json, model.safetensors and 1_Pooling/config.json.
Weight matrices are stored as F16, biases and norms as F32 (llama.cpp's own BERT layout).
"""

import json
import sys
from pathlib import Path

import gguf
import numpy as np
from safetensors.numpy import load_file

# Hugging Face BERT tensor names -> llama.cpp's (per layer, after "encoder.layer.N.").
LAYER_TENSORS = {
    "attention.self.query": "attn_q",
    "attention.self.key": "attn_k",
    "attention.self.value": "attn_v",
    "attention.output.dense": "attn_output",
    "attention.output.LayerNorm": "attn_output_norm",
    "intermediate.dense": "ffn_up",
    "output.dense": "ffn_down",
    "output.LayerNorm": "layer_output_norm",
}
EMBEDDING_TENSORS = {
    "embeddings.word_embeddings": "token_embd",
    "embeddings.position_embeddings": "position_embd",
    "embeddings.token_type_embeddings": "token_types",
    "embeddings.LayerNorm": "token_embd_norm",
}


def gguf_name(hf_name):
    stem, _, kind = hf_name.rpartition(".")
    if stem in EMBEDDING_TENSORS:
        return f"{EMBEDDING_TENSORS[stem]}.{kind}"
    if stem.startswith("encoder.layer."):
        layer, _, rest = stem[len("encoder.layer."):].partition(".")
        if rest in LAYER_TENSORS:
            return f"blk.{layer}.{LAYER_TENSORS[rest]}.{kind}"
    return None  # position_ids, the unused pooler head


def vocabulary(tokenizer):
    """Tokens in id order, spelt as llama.cpp's WordPiece tokenizer expects: a word start
    carries the phantom space U+2581, a continuation loses its "##", special tokens stay."""
    vocab = tokenizer["model"]["vocab"]
    special = {t["content"] for t in tokenizer.get("added_tokens", []) if t.get("special")}
    tokens, types = [], []
    for text, _ in sorted(vocab.items(), key=lambda item: item[1]):
        if text in special:
            tokens.append(text)
            types.append(gguf.TokenType.UNKNOWN if text == "[UNK]" else gguf.TokenType.CONTROL)
        elif text.startswith("##"):
            tokens.append(text[2:])
            types.append(gguf.TokenType.NORMAL)
        else:
            tokens.append("\u2581" + text)
            types.append(gguf.TokenType.NORMAL)
    return tokens, types, vocab


def main(model_dir, out):
    model_dir = Path(model_dir)
    config = json.loads((model_dir / "config.json").read_text())
    pooling = json.loads((model_dir / "1_Pooling" / "config.json").read_text())
    tokenizer = json.loads((model_dir / "tokenizer.json").read_text())
    if not pooling.get("pooling_mode_mean_tokens"):
        sys.exit("only mean pooling is supported")

    writer = gguf.GGUFWriter(out, "bert")
    writer.add_name("all-MiniLM-L6-v2")
    writer.add_context_length(config["max_position_embeddings"])
    writer.add_embedding_length(config["hidden_size"])
    writer.add_feed_forward_length(config["intermediate_size"])
    writer.add_block_count(config["num_hidden_layers"])
    writer.add_head_count(config["num_attention_heads"])
    writer.add_layer_norm_eps(config["layer_norm_eps"])
    writer.add_causal_attention(False)
    writer.add_pooling_type(gguf.PoolingType.MEAN)
    writer.add_token_type_count(config["type_vocab_size"])
    writer.add_file_type(gguf.LlamaFileType.MOSTLY_F16)

    tokens, types, vocab = vocabulary(tokenizer)
    writer.add_tokenizer_model("bert")
    writer.add_tokenizer_pre("default")
    writer.add_token_list(tokens)
    writer.add_token_types(types)
    writer.add_bos_token_id(vocab["[CLS]"])  # llama.cpp starts a BERT input with its BOS
    writer.add_add_bos_token(True)
    writer.add_sep_token_id(vocab["[SEP]"])
    writer.add_pad_token_id(vocab["[PAD]"])
    writer.add_unk_token_id(vocab["[UNK]"])
    writer.add_mask_token_id(vocab["[MASK]"])

    written = 0
    for hf_name, tensor in load_file(model_dir / "model.safetensors").items():
        name = gguf_name(hf_name)
        if name is None:
            continue
        matrix = tensor.ndim == 2 and name != "token_types.weight"
        writer.add_tensor(name, tensor.astype(np.float16 if matrix else np.float32))
        written += 1
    # Three embedding tables, the embedding norm (weight, bias), and weight + bias per layer tensor.
    expected = 3 + 2 + config["num_hidden_layers"] * len(LAYER_TENSORS) * 2
    if written != expected:
        sys.exit(f"wrote {written} tensors, expected {expected}")

    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
