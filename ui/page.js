// The page-wide script (ui.widgets.page_style mounts it on every page; it installs itself once per
// browser tab). Fixed code: it reads the page's own elements and changes attributes and classes,
// turns Enter in a date field into what saves its date there (3.) and puts fixed Japanese words in
// place of one English dialog of Streamlit's (6.).
//
// 1. A table that scrolls sideways must be reachable by the keyboard (WCAG 2.1.1; axe-core's
//    scrollable-region-focusable), as st.table's own scroll box is: while a Markdown table is wider
//    than its box it takes part in Tab order and is named for a screen reader. Markdown cannot carry
//    tabindex (nor does a heatmap's table carry it), so the tables are marked here; one observer per
//    browser tab, re-checking once per frame after Streamlit changes the page or the window resizes.
// 2. On a phone the sidebar covers most of the screen and Streamlit leaves it open after a page was
//    chosen in it: a tap on one of its links closes it, as a phone's menu does.
// 4. A display formula wider than the text column (a phone, 390 px) is drawn smaller until it fits,
//    down to MIN_SCALE of its size; one that still does not fit scrolls sideways inside its box, and
//    the box says so (tabindex, aria-label), like a table. Its end — often the result — is never cut.
// 5. Every tap on a button shows at once that it was received: the button is drawn pressed (a class
//    and aria-busy) until the script run it started is over, or for TAP_NO_RUN_MS if it started none.
//    A tap on the exam's 次へ during a slow run showed nothing for over a second, and a second tap
//    followed (the page keys such buttons by the question they move from, so it cannot skip one).
// 3. Enter in a date field saves the typed date, as in any form. Streamlit's field (react-aria
//    segments, Streamlit 1.67) ignores Enter and stops it from bubbling (hence a capturing listener);
//    it saves a typed date when its calendar closes (Escape, while the calendar is open: focus stays
//    in the field) or when the focus leaves the field (a blur, while the calendar is closed — a blur
//    with the calendar open saves nothing). Enter does whichever of the two saves now.
// 6. Streamlit's dialog for an address that names no page (an old bookmark, a mistyped link) is in
//    English ("Page not found"); it is said in Japanese, as is its close button. Streamlit runs
//    ホーム behind it. (Its other English words are drawn in Japanese by ui/page.css.) The file
//    uploader's button, whose word ui/page.css draws as ファイルを選ぶ, is named so for a screen reader.
// 7. A page opened from a link (「次へ」, the sidebar, home's plan) starts at its top. Streamlit swaps
//    pages inside the tab and keeps the main column's scroll offset: the new page came up at the top
//    only when the old page's elements were cleared and laid out before the new ones arrived — not
//    always (① opened at the bottom of its lesson in 1 of 18 runs after ⓪-2's quiz). When the
//    address's path changes, the main column goes back to its top (a section's own ?section= is not a
//    new page: its tabs bring themselves into view, ui.sections).
const LABEL = "表（横にスクロールできます）";
const FORMULA_LABEL = "数式（横にスクロールできます）";
const FORMULAS = ".katex-display";
const MIN_SCALE = 0.6;
const TAPPED = "tutor-tapped";
const TAP_NO_RUN_MS = 1500;
const TAP_MAX_MS = 15000;
const TABLES = '[data-testid="stMarkdownContainer"] table, .hm table, .stp table';
const SIDEBAR_LINK = '[data-testid="stSidebar"] a';
const CLOSE = '[data-testid="stSidebarCollapseButton"] button';
const DATE_SEGMENT = '[data-testid="stDateInputField"] [role="spinbutton"]';
const CALENDAR = '[data-testid="stDateInputCalendar"]';
const NOT_FOUND = "Page not found";
const MAIN = '[data-testid="stMain"]';
const UPLOAD_BUTTON = '[data-testid="stFileUploaderDropzone"] button';
const UPLOAD_NAME = "ファイルを選ぶ";
const NOT_FOUND_JA = { title: "ページが見つかりません",
  text: "このアドレスのページはありません。ホームを開いています。ほかのページは左のメニューから選べます。",
  close: "閉じる" };

// A box that scrolls sideways takes part in Tab order and is named; a name needs a role on an element
// that has none of its own (a formula's span: axe-core's aria-prohibited-attr), so it becomes a group.
function markScrolling(box, label) {
  const scrolls = box.scrollWidth > box.clientWidth + 1;
  const role = box.tagName === "TABLE" ? null : "group";
  if (scrolls && box.tabIndex !== 0) {
    box.tabIndex = 0;
    box.setAttribute("aria-label", label);
    if (role) box.setAttribute("role", role);
  }
  if (!scrolls && box.hasAttribute("tabindex")) {
    box.removeAttribute("tabindex");
    box.removeAttribute("aria-label");
    if (role) box.removeAttribute("role");
  }
}

function fitFormula(display) {
  const formula = display.querySelector(".katex");
  if (!formula) return;
  if (!formula.dataset.fitBase) formula.dataset.fitBase = getComputedStyle(formula).fontSize;
  const base = parseFloat(formula.dataset.fitBase);
  formula.style.fontSize = "";
  const need = formula.scrollWidth, have = display.clientWidth;
  if (have > 0 && need > have + 1) formula.style.fontSize = (base * Math.max(MIN_SCALE, have / need)).toFixed(2) + "px";
  markScrolling(display, FORMULA_LABEL);
}

function sayNotFoundInJapanese() {
  for (const title of document.querySelectorAll('[role="dialog"] h2')) {
    if (title.textContent.trim() !== NOT_FOUND) continue;
    const dialog = title.closest('[role="dialog"]');
    title.textContent = NOT_FOUND_JA.title;
    if (title.nextElementSibling) title.nextElementSibling.textContent = NOT_FOUND_JA.text;
    const close = dialog.querySelector('button[aria-label="Close"]');
    if (close) close.setAttribute("aria-label", NOT_FOUND_JA.close);
  }
  for (const button of document.querySelectorAll(UPLOAD_BUTTON)) {
    if (button.getAttribute("aria-label") !== UPLOAD_NAME) button.setAttribute("aria-label", UPLOAD_NAME);
  }
}

let shownPath = location.pathname;

function toTopOfANewPage() {
  if (location.pathname === shownPath) return;
  shownPath = location.pathname;
  const main = document.querySelector(MAIN);
  if (main) main.scrollTop = 0;
}

function checkAfterEachChange() {
  let queued = false;
  const mark = () => {
    queued = false;
    toTopOfANewPage();
    for (const t of document.querySelectorAll(TABLES)) markScrolling(t, LABEL);
    for (const f of document.querySelectorAll(FORMULAS)) fitFormula(f);
    sayNotFoundInJapanese();
  };
  const queue = () => { if (!queued) { queued = true; requestAnimationFrame(mark); } };
  new MutationObserver(queue).observe(document.body, { childList: true, characterData: true, subtree: true });
  window.addEventListener("resize", queue);
  queue();
}

function closeSidebarAfterChoosing() {
  document.addEventListener("click", (event) => {
    const link = event.target instanceof Element ? event.target.closest(SIDEBAR_LINK) : null;
    const sidebar = link ? link.closest('[data-testid="stSidebar"]') : null;
    // only where the open sidebar covers the page (a phone), not beside it (a laptop)
    if (!sidebar || sidebar.getBoundingClientRect().width < window.innerWidth * 0.6) return;
    setTimeout(() => { const close = document.querySelector(CLOSE); if (close) close.click(); }, 0);
  }, true);
}

function enterSavesDates() {
  document.addEventListener("keydown", (event) => {
    const field = event.target;
    if (event.key !== "Enter" || event.isComposing || event.keyCode === 229 || event.altKey || event.ctrlKey
        || event.metaKey || event.shiftKey || !(field instanceof HTMLElement) || !field.matches(DATE_SEGMENT)) return;
    if (document.querySelector(CALENDAR)) {
      field.dispatchEvent(new KeyboardEvent("keydown", { key: "Escape", code: "Escape", keyCode: 27, bubbles: true, cancelable: true }));
    } else {
      field.blur();
    }
  }, true);
}

function showTaps() {
  let pressed = [];
  let runs = 0;            // script runs started so far (stApp's data-test-script-state)
  let running = false;
  const release = () => {
    for (const b of pressed) { b.classList.remove(TAPPED); b.removeAttribute("aria-busy"); }
    pressed = [];
  };
  new MutationObserver(() => {
    const app = document.querySelector('[data-testid="stApp"]');
    const now = !!app && app.getAttribute("data-test-script-state") === "running";
    if (now && !running) runs += 1;
    if (running && !now) release();
    running = now;
  }).observe(document.body, { attributes: true, subtree: true, attributeFilter: ["data-test-script-state"] });
  document.addEventListener("click", (event) => {
    const button = event.target instanceof Element ? event.target.closest("button") : null;
    if (!button || button.disabled || !button.closest(`${MAIN}, [data-testid="stSidebar"]`)) return;
    button.classList.add(TAPPED);
    button.setAttribute("aria-busy", "true");
    pressed.push(button);
    const before = runs;
    setTimeout(() => { if (runs === before && !running) release(); }, TAP_NO_RUN_MS);
    setTimeout(release, TAP_MAX_MS);
  }, true);
}

export default function () {
  if (window.__attentionTutorPage) return;
  window.__attentionTutorPage = true;
  checkAfterEachChange();
  closeSidebarAfterChoosing();
  enterSavesDates();
  showTaps();
}
