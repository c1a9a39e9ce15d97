// ui.widgets.scroll_to: bring the element keyed ``key`` (Streamlit's class st-key-<key>) into view,
// once, in the run that mounts this component. Used after a step that opens something the learner
// must see at once: 「次へ」 of a learning page opens the next section at its top (ui.sections), 提出する
// of the mock exam shows its confirmation (pages/20_exam.py). The keyed element's CSS gives it a
// scroll-margin-top so that it lands below the sticky header (ui.widgets.PAGE_CSS).
// Fixed code: it reads one key (a fixed name from our Python) and scrolls; nothing else.
export default function ({ data }) {
  const key = data && typeof data.key === "string" ? data.key : "";
  const target = key ? document.querySelector(`.st-key-${CSS.escape(key)}`) : null;
  if (target) target.scrollIntoView({ block: "start", behavior: "instant" });
  return undefined;
}
