// ui.stepper's component: fixed code. It reads the data (labels, options, tables as text) and
// never evaluates or renders markup. One call per mount and per new data; the same data again
// changes nothing.
const STORE = "attention-tutor/try/";
const ALIGN = { ":--": "left", "--:": "right", "---": "left" };

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function table(t) {
  const tbl = el("table");
  const tr = tbl.createTHead().insertRow();
  t.head.forEach((h, j) => {
    const th = el("th", "", h);
    th.scope = "col";
    th.style.textAlign = ALIGN[t.align[j]] || "left";
    tr.append(th);
  });
  const body = tbl.createTBody();
  for (const r of t.rows) {
    const row = body.insertRow();
    r.forEach((c, j) => {
      const label = j === 0 && t.align[0] === ":--";       // the row labels are row headers
      const cell = el(label ? "th" : "td", "", c);
      if (label) cell.scope = "row";
      cell.style.textAlign = ALIGN[t.align[j]] || "left";
      row.append(cell);
    });
  }
  return tbl;
}

function panel(blocks) {
  const p = el("div", "stp-panel");
  for (const b of blocks) {
    if (b.caption) p.append(el("p", "stp-caption", b.caption));
    if (b.table) p.append(table(b.table));
    if (b.text) p.append(el("p", "", b.text));
  }
  return p;
}

function kept(key) {
  try { return window.sessionStorage.getItem(STORE + key); } catch (e) { return null; }
}

function keep(key, option) {
  try { window.sessionStorage.setItem(STORE + key, option); } catch (e) { /* storage off: not kept */ }
}

export default function ({ parentElement, data }) {
  const d = data || {};
  const sig = JSON.stringify(d);
  if (parentElement.__stpSig === sig) return;
  parentElement.__stpSig = sig;
  const n = d.options.length, id = "stp-" + d.key;
  const root = el("div", "stp");
  const head = el("div", "stp-head");
  const label = el("label", "", d.label);
  label.htmlFor = id;
  const shown = el("output", "stp-value");
  shown.htmlFor = id;
  head.append(label, shown);
  const input = el("input");
  Object.assign(input, { type: "range", id: id, min: "0", max: String(n - 1), step: "1" });
  const ends = el("div", "stp-ends");
  ends.append(el("span", "", d.options[0]), el("span", "", d.options[n - 1]));
  ends.setAttribute("aria-hidden", "true");
  const body = el("div", "stp-body");
  const built = new Array(n);
  const show = (i) => {
    if (!built[i]) { built[i] = panel(d.panels[i]); body.append(built[i]); }
    built.forEach((p, j) => { if (p) p.hidden = j !== i; });
    input.value = String(i);
    input.setAttribute("aria-valuetext", d.options[i]);
    shown.textContent = d.options[i];
  };
  input.addEventListener("input", () => {
    const i = Number(input.value);
    show(i);
    keep(d.key, d.options[i]);
  });
  root.append(head, input, ends, body);
  parentElement.replaceChildren(root);
  const k = d.options.indexOf(kept(d.key));
  show(k >= 0 ? k : d.value);
}
