"""The misconception catalogue (quizzes/data/misconceptions.json, quizzes.misconceptions):
every distractor of every generator and bank item maps to an entry, each entry is reachable from
at least two generators, ids are unique and frozen, each entry points to a real page section, and
each entry is a form (reading-skill) or a topic misconception, a topic one with the page that teaches it."""
from __future__ import annotations

import ast
import hashlib
import json
from collections import Counter

import pytest

import quizzes
from quizzes import calc, knowledge
from quizzes import misconceptions as M
from quizzes.core import GENERATOR_INFO, GENERATORS, TOPICS, Question
from apphelpers import ROOT
from ui.nav import PAGE_BY_KEY

SEEDS = range(60)

# The ids are stored nowhere yet, but links (?m=<id>) and the lead's mapping rely on them: an id
# may be added, never renamed or removed. A change here must be deliberate.
FROZEN_IDS = (
    "true_statement_judged_false", "forgot_sqrt_dk", "divide_by_d_k_without_sqrt", "variance_vs_std",
    "d_model_for_d_k", "scaling_purpose", "softmax_over_columns", "softmax_skipped",
    "weights_as_plain_average", "hard_selection", "wrong_score_pair", "query_key_swap", "no_projection",
    "key_value_swap", "similarity_measure", "k_not_transposed", "self_vs_source_target",
    "mask_after_softmax", "mask_fill_zero", "mask_extent", "padding_vs_causal_mask", "rnn_confusion",
    "fixed_context_bottleneck", "rnn_gates", "gradient_clipping", "teacher_forcing", "word_embedding",
    "cnn_image_confusion", "vit_patch_count", "head_split", "concat_vs_sum", "w_o_forgotten",
    "parameter_count", "pe_formula", "position_information", "layer_norm_vs_batch_norm",
    "residual_and_norm_order", "dropout_role", "ffn_activation", "architecture_family",
    "bert_pretraining_tasks", "pretrain_finetune", "temperature_effect", "top_k_top_p", "output_layer",
    "complexity_n2d", "attention_memory", "softmax_gradient", "cross_entropy_update", "attention_is_learned",
    "purpose_confusion", "reversed_effect",
    "gpt_scale", "scaling_laws", "prompting", "assistant_tuning", "reward_model_loss", "hallucination",
    "kv_cache", "bpe_subword", "swin_windows", "mae_masking", "clip_zero_shot",
    "lr_schedule", "warmup_reason", "adam_settings", "label_smoothing", "dropout_scaling",
    "gated_update", "rnn_parameter_count", "lstm_history", "bptt", "scheduled_sampling", "soft_hard_attention",
    "global_local_attention", "hidden_layer_terms", "static_contextual_embedding",
    "cosine_normalisation", "tfidf_formula", "context_window", "cbow_skipgram", "subword_units", "embedding_size",
    "count_methods", "text_analysis", "negative_sampling", "distributional_hypothesis",
    "mt_task", "mt_evaluation", "paper_setup", "bleu_counting", "bleu_combining", "length_penalty",
    "checkpoint_averaging", "training_cost_estimate", "model_variations",
    "albert_parameter_saving", "roberta_masking", "electra_detection", "permutation_lm", "span_corruption",
    "answer_span", "successor_models", "benchmark_confusion", "nlp_task_confusion",
    "transfer_forgetting", "lora_low_rank", "peft_methods", "alignment_methods", "prompt_engineering",
    "rag_retrieval", "agents_tools",
    "distillation_temperature", "quantization_steps", "magnitude_pruning", "sparse_attention", "compression_methods",
    "inference_tricks",
    "clip_similarity", "clip_direction", "diffusion_schedule", "diffusion_forward", "diffusion_process",
    "generative_model_families", "cross_attention_sources", "guidance_direction", "vision_language_tasks",
    "multimodal_models", "multimodal_terms",
    "rnn_variants",
    "gan_optimal_discriminator", "gan_generator_loss", "transposed_conv_size", "cycle_consistency", "volume_rendering",
    "wavenet_receptive_field", "mu_law", "gan_concepts", "dcgan_guidelines", "image_translation_pairs", "nerf_concepts",
    "audio_generation",
)
FROZEN_DIGEST = "a7d3e32f0d1e657e"   # sha256 of the list above: changing the list means changing this too


@pytest.fixture(scope="module")
def reach() -> tuple[dict[str, set[str]], list[str]]:
    """({id: generators whose questions (seeds 0–59) offer it}, [unmapped 'generator: name'])."""
    out: dict[str, set[str]] = {m: set() for m in M.catalogue()}
    unmapped = []
    for gid, make in sorted(GENERATORS.items()):
        for seed in SEEDS:
            q = make(seed)
            for c, label in enumerate(q.misconceptions):
                if c == q.answer:
                    continue
                mids = M.misconception_ids(q, c)
                if not mids:
                    unmapped.append(f"{gid}: {M.distractor_name(label)}")
                for mid in mids:
                    out[mid].add(gid)
    return out, sorted(set(unmapped))


def test_every_distractor_of_every_generator_maps_to_an_entry(reach):
    _, unmapped = reach
    assert unmapped == [], "distractor names missing from quizzes/data/misconceptions.json: " + "; ".join(unmapped[:40])


def test_every_bank_item_maps_to_an_entry():
    missing = [f"{item['id']}: {w['why']}" for items in knowledge.bank().values() for item in items
               for w in item["wrong"] if M.id_for_name(M.distractor_name(w["why"])) is None]
    assert missing == []


def test_each_entry_is_reachable_from_two_generators(reach):
    by_id, _ = reach
    thin = {m: sorted(g) for m, g in by_id.items() if len(g) < 2}
    assert thin == {}


def test_ids_are_unique_snake_case_and_frozen():
    ids = tuple(M.catalogue())
    assert len(ids) == len(set(ids)) == len(json.loads(M.CATALOGUE_PATH.read_text(encoding="utf-8"))["entries"])
    assert set(FROZEN_IDS) <= set(ids), f"catalogue ids removed or renamed: {sorted(set(FROZEN_IDS) - set(ids))}"
    assert hashlib.sha256("\n".join(FROZEN_IDS).encode()).hexdigest()[:16] == FROZEN_DIGEST
    assert ids[: len(FROZEN_IDS)] == FROZEN_IDS        # new entries go at the end


def test_examples_from_the_brief_map_where_they_should():
    for name, mid in [("√d_k で割り忘れ", "forgot_sqrt_dk"), ("列方向の softmax", "softmax_over_columns"),
                      ("softmax の後でマスク", "mask_after_softmax"), ("Self-Attention との混同", "self_vs_source_target"),
                      ("d_model と d_k の混同", "d_model_for_d_k"), ("転置の位置の取り違え", "k_not_transposed"),
                      ("RNN との混同", "rnn_confusion"), ("正しい記述を誤りと判断", "true_statement_judged_false"),
                      ("正しい記述", "true_statement_judged_false")]:
        assert M.id_for_name(name) == mid


def test_misconception_id_of_choices():
    q = quizzes.from_id("naive.weight#3")
    ids = M.choice_ids(q)
    assert ids[q.answer] is None
    assert all(ids[c] == M.id_for_name(M.distractor_name(q.misconceptions[c])) for c in range(4) if c != q.answer)
    assert "softmax_over_columns" in ids
    for bad in (-1, 4, True, "1", None):
        assert M.misconception_id(q, bad) is None
    renamed = Question(q.id, q.topic, q.stem, q.choices, q.answer, q.explanation,
                       tuple("" if c == q.answer else "誰も知らない名前：…" for c in range(4)))
    assert M.question_ids(renamed) == frozenset()


def _folded_titles(arg, tree) -> list[str]:
    """The topic titles of ui.folded_topics(heading, topics, …): ``topics`` written in the call or
    named by a module-level constant."""
    if isinstance(arg, ast.Name):
        arg = next(n.value for n in tree.body if isinstance(n, ast.Assign)
                   and any(isinstance(t, ast.Name) and t.id == arg.id for t in n.targets))
    return [t.elts[0].value for t in arg.elts]


def page_sections(path) -> dict[str, list[str]]:
    """A page drawn by ui.sections: section key → the headings (st.header / st.subheader /
    ui.section, and ui.folded_topics' heading and topic titles) its function draws, in order. "aim"
    and "explain" share a tab: a function may draw ui.section("aim") and ui.section("explain"), and
    each heading after one belongs to it."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    funcs = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    call = next(n for n in ast.walk(tree) if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute)
                and n.func.attr == "sections")
    out: dict[str, list[str]] = {}
    for part in call.args[1].elts:
        name, fn = part.elts[0].value, part.elts[1].id
        current = name
        out.setdefault(current, [])
        calls = sorted((n for n in ast.walk(funcs[fn]) if isinstance(n, ast.Call)
                        and isinstance(n.func, ast.Attribute) and n.args and isinstance(n.args[0], ast.Constant)
                        and isinstance(n.args[0].value, str)), key=lambda n: (n.lineno, n.col_offset))
        for n in calls:
            if n.func.attr == "section":
                current = n.args[0].value
                out.setdefault(current, [])
            elif n.func.attr in ("subheader", "header"):
                out[current].append(n.args[0].value)
            elif n.func.attr == "folded_topics":
                out[current] += [n.args[0].value] + _folded_titles(n.args[1], tree)
    return out


def test_sections_exist_on_their_pages():
    """Each entry's page is a learning page, its section is one of that page's sections (ui.sections,
    or a ui.section heading inside one), and its sub-heading is drawn in that section."""
    for m in M.catalogue().values():
        if m.page is None:
            continue
        sections = page_sections(ROOT / PAGE_BY_KEY[m.page].path)
        assert m.section in sections, (m.id, m.page, m.section, list(sections))
        if m.heading is not None:
            assert m.heading in sections[m.section], (m.id, m.heading, sections[m.section])


def test_every_entry_has_a_real_explanation():
    for m in M.catalogue().values():
        assert 60 <= len(m.explanation) <= 400, m.id
        assert "。" in m.explanation and m.name.strip()
    names = [m.name for m in M.catalogue().values()]
    assert len(names) == len(set(names))


def _entry(**kw) -> dict:
    return {"id": "a", "name": "x", "explanation": "y", "kind": "topic", "page": "naive", "section": "explain",
            "heading": None, "distractors": ["a"], **kw}


@pytest.mark.parametrize("bad", [
    {"version": 2, "entries": []},
    {"version": 1, "entries": [_entry(id="Bad-Id")]},
    {"version": 1, "entries": [_entry(page="nowhere")]},
    {"version": 1, "entries": [_entry(section="intro")]},
    {"version": 1, "entries": [_entry(distractors=["n"]), _entry(id="b", distractors=["n"])]},
    {"version": 1, "entries": [_entry(distractors=[])]},
    # the kind (issue 35, item 4)
    {"version": 1, "entries": [{k: v for k, v in _entry().items() if k != "kind"}]},
    {"version": 1, "entries": [_entry(kind="reading")]},
    {"version": 1, "entries": [_entry(page=None)]},                          # a topic needs its page
    {"version": 1, "entries": [_entry(form="worst")]},                       # only a form names a form
    {"version": 1, "entries": [_entry(kind="form", page=None)]},             # a form names its form
    {"version": 1, "entries": [_entry(kind="form", page=None, form="best")]},
    {"version": 1, "entries": [_entry(kind="form", page="naive", form="worst")]},   # a form has no page
])
def test_a_broken_catalogue_is_refused(bad):
    with pytest.raises(ValueError):
        M.validate_catalogue(bad)


def test_the_entry_used_for_broken_cases_is_valid():
    assert M.validate_catalogue({"version": 1, "entries": [_entry()]})["a"].kind == "topic"
    form = M.validate_catalogue({"version": 1, "entries": [_entry(kind="form", page=None, form="worst")]})["a"]
    assert (form.kind, form.page, form.form, form.practice_label) == ("form", None, "worst", "『不適切なもの』を選ぶ問題")


# ---------------------------------------------------------------------------
# kinds and pages (issue 35, item 4): where a misconception is fixed
# ---------------------------------------------------------------------------
# The page rule (quizzes/misconceptions.py): the topic with the most generators that can show the
# entry, a tie going to the earlier page in the course. These entries are taught on another of
# their generators' topics: the rule's page only reuses a concept that this page explains.
TAUGHT_ELSEWHERE = {
    "forgot_sqrt_dk": ("scaling", "④'s calculations (4 generators) reuse the division ③ explains"),
    "variance_vs_std": ("scaling", "③ derives var = d_k and std = √d_k; ⑦-2's layer norm reuses it"),
    "weights_as_plain_average": ("naive", "① introduces the weighted average; ④ and ⑥ compute it"),
    "hard_selection": ("naive", "① introduces softmax as soft weights; ⑦-4's greedy decoding uses argmax"),
    "rnn_confusion": ("cost", "tied with ①; ⑦-5 compares self-attention and RNN (parallelism, paths)"),
    "cnn_image_confusion": ("pretrain", "tied with ① and ⑦-2; ⑨'s ViT section contrasts patches with CNN"),
    "ffn_activation": ("block", "tied with ①; ⑦-2 teaches the FFN and its activation"),
}


def rule_page(generators: set[str]) -> str:
    counts = Counter(GENERATOR_INFO[g].topic for g in generators)
    order = list(TOPICS)
    return min(counts, key=lambda t: (-counts[t], order.index(t)))


def test_every_entry_has_a_kind_and_a_place_to_fix_it():
    kinds = Counter(m.kind for m in M.catalogue().values())
    assert set(kinds) == set(M.KINDS) and sum(kinds.values()) == len(M.catalogue())
    for m in M.catalogue().values():
        if m.kind == "form":
            assert m.page is None and m.form in M.QUESTION_FORMS and m.practice_label, m.id
        else:
            assert m.page in TOPICS and m.form is None and m.practice_label == "", m.id
            assert PAGE_BY_KEY[m.page].exists, m.id
    assert M.catalogue()["true_statement_judged_false"].kind == "form"
    raw = json.loads(M.CATALOGUE_PATH.read_text(encoding="utf-8"))["entries"]
    assert all("kind" in e for e in raw)                      # stored in the data, not defaulted


def test_a_form_entry_happens_only_on_its_form_and_a_topic_entry_on_ordinary_items():
    """The classification matches the questions: every question offering a form misconception asks
    in that form; every topic misconception is also offered by items of no special form."""
    seen: dict[str, set] = {m: set() for m in M.catalogue()}
    for gid, make in GENERATORS.items():
        for seed in range(12):
            q = make(seed)
            for mid in M.question_ids(q):
                seen[mid].add(M.question_form(q))
    for m in M.catalogue().values():
        if m.kind == "form":
            assert seen[m.id] == {m.form}, m.id
        else:
            assert None in seen[m.id], m.id


def test_topic_pages_follow_the_rule(reach):
    by_id, _ = reach
    for m in M.catalogue().values():
        if m.kind != "topic":
            continue
        rule = rule_page(by_id[m.id])
        if m.id in TAUGHT_ELSEWHERE:
            page, _why = TAUGHT_ELSEWHERE[m.id]
            assert m.page == page != rule, (m.id, m.page, rule)                     # a real exception
            assert page in {GENERATOR_INFO[g].topic for g in by_id[m.id]}, m.id    # a topic of its generators
        else:
            assert m.page == rule, (m.id, m.page, rule)


def test_question_form_marks_the_worst_items():
    for items in knowledge.bank().values():
        for item in items:
            q = quizzes.from_id(f"kb.{item['id']}#0")
            assert (M.question_form(q) == "worst") == (item["form"] == "worst"), item["id"]
    assert M.QUESTION_FORMS["worst"][0] in calc.WORST
    assert M.question_form(quizzes.from_id("naive.weight#3")) is None


def test_the_catalogue_is_not_a_bank_file():
    assert "misconceptions" not in knowledge.bank()
    assert M.CATALOGUE_PATH.name in knowledge.NOT_BANK


def test_a_wrong_combination_of_two_slips_names_both():
    """穴埋め items built by quizzes.calc.two_slips: the choice with both slips is 「A＋B」."""
    for seed in range(40):
        q = quizzes.from_id(f"naive.chain_blank#{seed}")
        both = [c for c in range(4) if "＋" in M.distractor_name(q.misconceptions[c])]
        if both:
            c = both[0]
            ids = M.misconception_ids(q, c)
            assert len(ids) == 2 and M.misconception_id(q, c) == ids[0]
            assert set(ids) <= M.question_ids(q)
            return
    pytest.fail("no combined slip in 40 seeds of naive.chain_blank")


def test_a_source_target_miss_is_filed_where_source_target_attention_is_taught():
    """Issue 41 row 9: choosing 「クエリはエンコーダの出力から…」 on ② (kb.qkv.k05) was filed under 「効果の
    向きを逆に読む」, whose place to relearn is ③ (√d_k), which does not teach Source-Target Attention."""
    import quizzes
    from quizzes.misconceptions import catalogue, misconception_ids
    q = quizzes.from_id("kb.qkv.k05#0")
    choice = next(i for i, c in enumerate(q.choices) if c.startswith("クエリはエンコーダの出力から"))
    (mid,) = misconception_ids(q, choice)
    entry = catalogue()[mid]
    assert mid == "self_vs_source_target" and entry.page == "encdec"
    assert "Source-Target" in entry.explanation
