// The Kura console's script: the stream's live tail, charts refreshed in place, and
// confirmations. Values are shown with textContent only, never parsed as HTML.
"use strict";

// The stream's live tail. Rows are kept in time order across shards and polls (newest on
// top, by sequence number), the newest N only (the page says so), filtered by event and
// key as they come; a poll that came back full is followed at once, so a replay from the
// oldest record catches up at thousands of records a second.
function tail(controls) {
  const body = document.querySelector("#tail tbody");
  const status = document.getElementById("tail-status");
  const from = document.getElementById("tail-from");
  const pause = document.getElementById("tail-pause");
  const event = document.getElementById("tail-event");
  const key = document.getElementById("tail-key");
  const keep = document.getElementById("tail-keep");
  let cursor = "";
  let paused = false;
  let seen = 0;
  let shards = 0;
  let timer = null;
  let inFlight = false;
  // While catching up (a poll came back full), rows wait here and are drawn once a
  // second or when caught up: drawing every page would cost more than reading it.
  let pending = [];
  let drawn = 0;
  // Bumped when the start changes: an answer to a poll sent before is dropped.
  let generation = 0;
  const cell = (row, text, cls) => {
    const td = row.insertCell();
    if (cls) td.className = cls;
    if (text !== null && text !== undefined) {
      const pre = document.createElement("pre");
      pre.textContent = text;
      td.appendChild(pre);
    }
    return td;
  };
  const shows = (row) =>
    (!event.value || row.dataset.event === event.value) &&
    (!key.value || row.dataset.keys.includes(key.value));
  const filter = () => {
    for (const row of body.rows) row.hidden = !shows(row);
    say();
  };
  const say = () => {
    const limit = Number(keep.value);
    const shown = [...body.rows].filter((r) => !r.hidden).length;
    const state = paused ? "paused" : pending.length ? "catching up" : "live";
    status.textContent = state + " · " + seen + " records read · " +
      shown + " shown (the newest " + limit.toLocaleString("en") + " are kept) · " + shards + " shards";
  };
  // The row's place: after every row with a later sequence (rows run newest first).
  const place = (order) => {
    let low = 0;
    let high = body.rows.length;
    while (low < high) {
      const mid = (low + high) >> 1;
      if (body.rows[mid].dataset.order > order) low = mid + 1;
      else high = mid;
    }
    return low;
  };
  const add = (r) => {
    const row = body.insertRow(place(r.order));
    row.className = "event " + String(r.event).toLowerCase();
    row.dataset.order = r.order;
    row.dataset.event = r.event;
    row.dataset.keys = r.keys || "";
    cell(row, r.time);
    cell(row, r.event, "eventname");
    cell(row, r.keys);
    cell(row, r.old, "image old");
    const image = cell(row, r.new, "image new");
    if (r.changed && r.changed.length) {
      const list = document.createElement("div");
      list.className = "changed";
      list.append("changed: ");
      r.changed.forEach((attribute, i) => {
        if (i) list.append(", ");
        const mark = document.createElement("mark");
        mark.textContent = attribute;
        list.appendChild(mark);
      });
      image.prepend(list);
    }
    cell(row, r.shard + " · " + r.sequence, "seq");
    row.hidden = !shows(row);
  };
  async function poll() {
    timer = null;
    inFlight = true;
    let again = 1000;
    if (!paused) {
      try {
        const sent = generation;
        const form = new URLSearchParams({
          csrf: controls.dataset.csrf, from: from.value, cursor, keep: keep.value });
        const response = await fetch(controls.dataset.poll, {
          method: "POST", body: form, credentials: "same-origin", redirect: "error" });
        if (response.status === 401) {
          status.textContent = "signed out: reload the page to sign in";
          return;
        }
        const answer = await response.json();
        if (sent !== generation) {
          again = 0;
        } else if (answer.error) {
          status.textContent = answer.error;
        } else {
          cursor = answer.cursor;
          shards = answer.shards;
          const limit = Number(keep.value);
          // Only the newest `keep` are drawn, the rest counted. Shards are read one after
          // another, so a later poll may bring older records: keep the newest by sequence.
          pending = pending
            .concat(answer.records)
            .sort((a, b) => (a.order < b.order ? -1 : a.order > b.order ? 1 : 0))
            .slice(-limit);
          seen += answer.read ?? answer.records.length;
          if (!answer.more || performance.now() - drawn > 1000) {
            for (const r of pending) add(r);
            pending = [];
            drawn = performance.now();
            while (body.rows.length > limit) body.deleteRow(-1);
          }
          say();
          if (answer.more) again = 0;
        }
      } catch (e) {
        status.textContent = "cannot reach the server: " + e;
      }
    }
    inFlight = false;
    timer = setTimeout(poll, again);
  }
  from.addEventListener("change", () => {
    generation += 1;
    cursor = "";
    body.replaceChildren();
    pending = [];
    seen = 0;
    // The new start is read now, not after the wait: a poll in flight comes back to an
    // immediate next one (its answer is dropped).
    if (!inFlight && timer !== null) {
      clearTimeout(timer);
      poll();
    }
  });
  event.addEventListener("change", filter);
  key.addEventListener("input", filter);
  keep.addEventListener("change", () => {
    while (body.rows.length > Number(keep.value)) body.deleteRow(-1);
    say();
  });
  pause.addEventListener("click", () => {
    paused = !paused;
    pause.textContent = paused ? "Resume" : "Pause";
    say();
  });
  poll();
}

// The metrics page's charts, drawn again from the server every five seconds. The
// fragment is the server's own markup (every value in it escaped), parsed as a document
// and moved in, never assigned as HTML text.
function refreshCharts(charts) {
  setInterval(async () => {
    try {
      const answer = await fetch(charts.dataset.refresh,
        { credentials: "same-origin", redirect: "error" });
      if (answer.ok) {
        const doc = new DOMParser().parseFromString(await answer.text(), "text/html");
        charts.replaceChildren(...doc.body.childNodes);
      }
    } catch (e) { /* the next refresh tries again */ }
  }, 5000);
}

// The items grid's column picker: unticked columns are hidden, and the browser remembers
// them per table (localStorage), so a wide single-table design stays readable.
function columnPicker(picker) {
  const grid = picker.nextElementSibling.querySelector("table.items");
  const offset = Number(picker.dataset.offset) || 0;
  const memory = "kura.columns." + picker.dataset.columnsOf;
  let hidden;
  try {
    hidden = new Set(JSON.parse(localStorage.getItem(memory) || "[]"));
  } catch {
    hidden = new Set();
  }
  const boxes = [...picker.querySelectorAll("input[type=checkbox]")];
  const apply = () => {
    boxes.forEach((box, i) => {
      for (const row of grid.rows) {
        const cell = row.cells[i + offset];
        if (cell) cell.style.display = box.checked ? "" : "none";
      }
    });
    picker.querySelector(".shown").textContent = boxes.filter((b) => b.checked).length;
  };
  for (const box of boxes) {
    box.checked = !hidden.has(box.value);
    box.addEventListener("change", () => {
      if (box.checked) hidden.delete(box.value);
      else hidden.add(box.value);
      try {
        localStorage.setItem(memory, JSON.stringify([...hidden]));
      } catch {
        // Private windows may refuse storage: the choice then lasts for this page.
      }
      apply();
    });
  }
  apply();
}

// The query builder: choosing another index shows its key names (and its sort key's
// fields only where it has one), and a partition key value typed while Scan is chosen
// makes the request a Query, since a Scan has no use for it.
function queryBuilder(form) {
  const index = form.querySelector("select[name=index]");
  const op = form.querySelector("select[name=op]");
  const pk = form.querySelector("input[name=pk]");
  index.addEventListener("change", () => {
    const chosen = index.selectedOptions[0];
    form.querySelector(".pk-name").textContent = chosen.dataset.pk || "";
    form.querySelector(".sk-name").textContent = chosen.dataset.sk || "";
    form.querySelector(".sort-keys").hidden = !chosen.dataset.sk;
  });
  pk.addEventListener("input", () => {
    if (pk.value) op.value = "query";
  });
}

// The item editor's text: line numbers in a gutter and JSON highlighted in a layer under
// the textarea (whose own text is transparent, its caret not), kept in step as the user
// types and scrolls. Built from text nodes only: an item's content is never parsed as HTML.
const TYPE_NAMES = new Set(["S", "N", "B", "BOOL", "NULL", "M", "L", "SS", "NS", "BS"]);
function codeEditor(text) {
  const frame = document.createElement("div");
  frame.className = "code-editor";
  const gutter = document.createElement("pre");
  gutter.className = "gutter";
  gutter.setAttribute("aria-hidden", "true");
  const layer = document.createElement("pre");
  layer.className = "highlight";
  layer.setAttribute("aria-hidden", "true");
  text.parentNode.insertBefore(frame, text);
  frame.append(gutter, layer, text);
  const token = /("(?:[^"\\]|\\.)*")(\s*:)?|(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|\b(true|false|null)\b/g;
  let pending = false;
  const draw = () => {
    pending = false;
    const value = text.value;
    const lines = value.split("\n").length;
    gutter.textContent = Array.from({ length: lines }, (_, i) => i + 1).join("\n");
    const parts = document.createDocumentFragment();
    let at = 0;
    for (const m of value.matchAll(token)) {
      if (m.index > at) parts.append(value.slice(at, m.index));
      const span = document.createElement("span");
      span.textContent = m[1] || m[0];
      if (m[1] && m[2]) span.className = TYPE_NAMES.has(m[1].slice(1, -1)) ? "t" : "k";
      else if (m[1]) span.className = "s";
      else if (m[3]) span.className = "n";
      else span.className = "b";
      parts.append(span);
      if (m[2]) parts.append(m[2]);
      at = m.index + m[0].length;
    }
    parts.append(value.slice(at) + "\n");
    layer.replaceChildren(parts);
    sync();
  };
  const sync = () => {
    layer.scrollTop = text.scrollTop;
    layer.scrollLeft = text.scrollLeft;
    gutter.scrollTop = text.scrollTop;
  };
  const later = () => {
    if (!pending) {
      pending = true;
      requestAnimationFrame(draw);
    }
  };
  text.addEventListener("input", later);
  text.addEventListener("change", later);
  text.addEventListener("scroll", sync);
  draw();
}

// The lines that differ between two texts, with two lines of context: [" ", "-", "+"]
// prefixed, from a longest common subsequence (a plain count when the texts are huge).
function lineDiff(before, after) {
  const a = before.split("\n");
  const b = after.split("\n");
  if (a.length * b.length > 4000000) return null;
  const lcs = Array.from({ length: a.length + 1 }, () => new Uint32Array(b.length + 1));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const out = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      out.push([" ", a[i]]);
      i++;
      j++;
    } else if (j < b.length && (i === a.length || lcs[i][j + 1] >= lcs[i + 1][j])) {
      out.push(["+", b[j++]]);
    } else {
      out.push(["-", a[i++]]);
    }
  }
  const near = (k) => out.slice(Math.max(0, k - 2), k + 3).some(([mark]) => mark !== " ");
  return out.filter((_, k) => near(k));
}

// Saving an existing item shows what changes first: the first Save draws the diff, the
// second ("Save these changes") sends it. Unchanged text and new items save at once.
function reviewBeforeSave(form) {
  const text = form.querySelector("textarea[name=item]");
  const save = form.querySelector("button[type=submit]");
  // The stored item in this view: the text, unless the page shows edits not saved yet.
  const saved = text.dataset.saved ?? text.value;
  let reviewed = null;
  form.addEventListener("submit", (event) => {
    if (!form.querySelector("input[name=key]") || text.value === saved || reviewed === text.value) return;
    event.preventDefault();
    let view = form.querySelector("div.diff");
    if (!view) {
      view = document.createElement("div");
      view.className = "diff";
      save.parentElement.before(view);
    }
    const lines = lineDiff(saved, text.value);
    const list = document.createElement("pre");
    if (lines) {
      for (const [mark, line] of lines) {
        const row = document.createElement("span");
        row.className = mark === "+" ? "added" : mark === "-" ? "removed" : "same";
        row.textContent = mark + " " + line + "\n";
        list.appendChild(row);
      }
    } else {
      list.textContent = "The item changed (too large to show line by line).";
    }
    const heading = document.createElement("h3");
    heading.textContent = "Changes to save";
    view.replaceChildren(heading, list);
    reviewed = text.value;
    save.textContent = "Save these changes";
  });
}

// The item editor: leaving the page with edits not saved asks first (a link of the page,
// another view or back to the list, with a confirmation; closing or reloading, with the
// browser's own question); saving does not.
function guardEdits(form) {
  const text = form.querySelector("textarea[name=item]");
  const saved = text.dataset.saved ?? text.value;
  let saving = false;
  const dirty = () => !saving && text.value !== saved;
  // A submit the diff review held back (defaultPrevented) saved nothing: still dirty.
  form.addEventListener("submit", (event) => {
    if (!event.defaultPrevented) saving = true;
  });
  document.addEventListener("click", (event) => {
    const link = event.target.closest("a[href]");
    // Another view with edits not saved: the edits go to the server, which shows them in
    // that view (not saved yet) instead of the stored item.
    if (link && link.dataset.view && dirty()) {
      event.preventDefault();
      saving = true;
      form.querySelector("input[name=switch]").value = link.dataset.view;
      form.submit();
      return;
    }
    if (link && dirty() && !window.confirm("Leave the editor? Your edits are not saved.")) {
      event.preventDefault();
    } else if (link) {
      saving = true;
    }
  });
  window.addEventListener("beforeunload", (event) => {
    if (dirty()) {
      event.preventDefault();
      event.returnValue = "";
    }
  });
}

document.addEventListener("DOMContentLoaded", () => {
  for (const picker of document.querySelectorAll("details.columns")) columnPicker(picker);
  const editor = document.querySelector("form.editor");
  if (editor) {
    codeEditor(editor.querySelector("textarea[name=item]"));
    reviewBeforeSave(editor);
    guardEdits(editor);
  }
  // The tables page's filter, as the user types (the form does the same without script).
  const filter = document.getElementById("table-filter");
  if (filter) {
    filter.addEventListener("input", () => {
      const wanted = filter.value.toLowerCase();
      for (const row of document.querySelectorAll("table.tables tbody tr")) {
        row.hidden = !row.dataset.name.includes(wanted);
      }
    });
  }
  // "Copy" beside each code snippet: the clipboard where the browser allows it (a secure
  // context: https or localhost), else the code is selected for the user to copy.
  for (const button of document.querySelectorAll("div.snippet button.copy")) {
    button.addEventListener("click", async () => {
      const code = button.closest("div.snippet").querySelector("pre code");
      try {
        await navigator.clipboard.writeText(code.textContent);
        button.textContent = "Copied";
      } catch {
        window.getSelection().selectAllChildren(code);
        button.textContent = "Selected: press Ctrl+C";
      }
    });
  }
  const builder = document.querySelector("form.builder");
  if (builder) queryBuilder(builder);
  const controls = document.getElementById("tail-controls");
  if (controls) tail(controls);
  const charts = document.getElementById("charts");
  if (charts && charts.dataset.refresh) refreshCharts(charts);
  // A file is read here and sent as the form's text: the server takes no uploads.
  for (const file of document.querySelectorAll("input[type=file][data-fills]")) {
    file.addEventListener("change", async () => {
      if (file.files.length) document.getElementById(file.dataset.fills).value = await file.files[0].text();
    });
  }
  for (const form of document.querySelectorAll("form[data-confirm]")) {
    form.addEventListener("submit", (event) => {
      // data-confirm-when="name=value": ask only when the form's field has that value
      // (the stream form asks when it turns the stream off, not when it turns it on).
      const when = form.dataset.confirmWhen;
      if (when) {
        const [name, value] = when.split("=");
        if (!form.elements[name] || form.elements[name].value !== value) return;
      }
      if (!window.confirm(form.dataset.confirm)) event.preventDefault();
    });
  }
});
