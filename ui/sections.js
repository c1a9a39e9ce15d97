// ui.sections' 「次へ」: after the next section opened, bring its tabs back into view (on a phone the
// button sits at the bottom of a long section, and the new one would open mid-way down).
// Fixed code: it reads the tabs' key (a fixed name) and scrolls; nothing else.
export default function ({ data }) {
  const key = (data && data.key) || "section";
  const tabs = document.querySelector(`.st-key-${CSS.escape(key)}`);
  if (tabs) tabs.scrollIntoView({ block: "start", behavior: "instant" });
  return undefined;
}
