/* LightNote chat page: the little glue htmx needs. Everything works without it as plain
   form posts; nothing here decides what happened — the server's answer does. */
(function () {
  "use strict";

  var FRAGMENT_HEADER = "X-LightNote-Fragment";

  function problems() {
    return document.getElementById("problems");
  }

  function showProblem(kind) {
    var box = problems();
    if (!box) return;
    box.textContent = box.dataset[kind] || box.dataset.generic || "";
    if (kind === "login" && box.dataset.loginLink) {
      // A link to log in again that comes back to this page (the text stays in this tab).
      var link = document.createElement("a");
      link.href = "/accounts/login/?next=" + encodeURIComponent(window.location.pathname);
      link.target = "_blank";
      link.rel = "noopener";
      link.textContent = box.dataset.loginLink;
      box.appendChild(document.createTextNode(" "));
      box.appendChild(link);
    }
  }

  // Swap only the server's own fragments (errors included: they carry a localized notice).
  // Anything else — a login page after the session expired, a proxy error, a 500 — is not
  // swapped into the conversation; a short notice asks to reload instead.
  document.addEventListener("htmx:beforeSwap", function (event) {
    var detail = event.detail;
    if (detail.xhr && detail.xhr.getResponseHeader(FRAGMENT_HEADER) === "1") {
      detail.shouldSwap = true;
      return;
    }
    detail.shouldSwap = false;
    showProblem("generic");
  });

  document.addEventListener("htmx:sendError", function () {
    showProblem("network");
  });

  document.addEventListener("htmx:afterRequest", function (event) {
    var form = event.detail.elt;
    var xhr = event.detail.xhr;
    var loggedOut = xhr && xhr.responseURL && xhr.responseURL.indexOf("/accounts/login/") !== -1;
    if (loggedOut) {
      // The login expired (in this tab or another): keep the text and the card, ask to log
      // in again.
      showProblem("login");
    }
    if (!form || form.id !== "composer") return;
    if (loggedOut) {
      // nothing more: the text stays in the box
    } else if (event.detail.successful && xhr && xhr.getResponseHeader(FRAGMENT_HEADER) === "1") {
      form.reset();
      var problem = document.getElementById("composer-problem");
      if (problem) problem.textContent = "";
      var box = problems();
      if (box) box.textContent = "";
    }
    var text = document.getElementById("chat-text");
    if (text) text.focus();
  });

  // The user's message appears at once while the planner runs, marked as pending; the
  // server's turn (which repeats it with its time) replaces it. On any failure the echo
  // goes away and the text stays in the box.
  function removeEcho() {
    var echo = document.getElementById("pending-echo");
    if (echo && echo.parentNode) echo.parentNode.removeChild(echo);
  }

  // A provisional message of the conversation (the pending echo, the reply being streamed):
  // the same who line and text box the server's own turns have; busy until replaced.
  function provisionalMessage(id, className, who, text) {
    var item = document.createElement("li");
    item.id = id;
    item.className = className;
    item.setAttribute("aria-busy", "true");
    var whoLine = document.createElement("p");
    whoLine.className = "who";
    whoLine.textContent = who || "";
    var body = document.createElement("div");
    body.className = "text";
    body.textContent = text;
    item.appendChild(whoLine);
    item.appendChild(body);
    return item;
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    var form = event.detail.elt;
    if (!form || form.id !== "composer") return;
    var text = document.getElementById("chat-text");
    var list = document.getElementById("messages");
    if (!text || !list || !text.value.trim()) return;
    removeEcho();
    var item = provisionalMessage("pending-echo", "msg msg-user msg-pending", form.dataset.you, text.value);
    var pending = document.createElement("p");
    pending.className = "pending";
    pending.textContent = form.dataset.pending || "";
    item.appendChild(pending);
    list.appendChild(item);
    var empty = document.querySelector(".conversation .empty");
    if (empty) empty.hidden = true;
    item.scrollIntoView({ block: "nearest" });
  });

  document.addEventListener("htmx:beforeSwap", function (event) {
    var form = event.detail.requestConfig && event.detail.requestConfig.elt;
    if (form && form.id === "composer") removeEcho();
  });

  document.addEventListener("htmx:afterRequest", function (event) {
    var form = event.detail.elt;
    if (form && form.id === "composer") removeEcho();
  });

  // A message's turn as it is written: where the browser can read a response as it arrives,
  // the message form is posted by fetch asking for events (Accept: text/event-stream). Each
  // `delta` is a sentence the server's guard already judged; it grows a provisional bubble.
  // `done` brings the turn as the server renders it (the same fragment an htmx post gets),
  // which replaces the bubble: the page never keeps text the server did not end with. A
  // turn with nothing to stream answers with that fragment at once. Without JavaScript the
  // form posts and the page reloads.
  function canStream() {
    return !!(window.fetch && window.ReadableStream && window.TextDecoder && window.htmx && htmx.swap);
  }

  function readEvents(body, onEvent) {
    var reader = body.getReader();
    var decoder = new TextDecoder();
    var buffer = "";
    function pump() {
      return reader.read().then(function (step) {
        if (step.done) return;
        buffer += decoder.decode(step.value, { stream: true });
        var parts = buffer.split("\n\n");
        buffer = parts.pop();
        parts.forEach(function (raw) {
          var name = "";
          var data = "";
          raw.split("\n").forEach(function (line) {
            if (line.indexOf("event: ") === 0) name = line.slice(7);
            else if (line.indexOf("data: ") === 0) data += line.slice(6);
          });
          if (name) onEvent(name, JSON.parse(data));
        });
        return pump();
      });
    }
    return pump();
  }

  function swapTurn(html, target, style) {
    var list = document.getElementById("messages");
    htmx.swap(target || list, html, { swapStyle: style || "beforeend" });
    tickCards();
    var composer = document.getElementById("composer");
    if (composer && (!target || target === list)) composer.scrollIntoView({ block: "end" });
  }

  function turnSent(form) {
    form.reset();
    var problem = document.getElementById("composer-problem");
    if (problem) problem.textContent = "";
    var box = problems();
    if (box) box.textContent = "";
  }

  function streamTurn(form) {
    var button = form.querySelector("button[type=submit]");
    var busy = document.getElementById("composer-busy");
    var list = document.getElementById("messages");
    var live = null;
    if (button) button.disabled = true;
    if (busy) busy.classList.add("htmx-request");

    function grow(text) {
      if (!live) {
        live = provisionalMessage("streaming-reply", "msg msg-assistant msg-streaming", form.dataset.assistant, "");
        list.appendChild(live);
        // The reply is being written now: the message is no longer waiting.
        var echo = document.getElementById("pending-echo");
        if (echo) {
          echo.classList.remove("msg-pending");
          echo.removeAttribute("aria-busy");
          var thinking = echo.querySelector(".pending");
          if (thinking) thinking.hidden = true;
        }
      }
      live.querySelector(".text").appendChild(document.createTextNode(text));
      live.scrollIntoView({ block: "nearest" });
    }

    function settle() {
      if (live && live.parentNode) live.parentNode.removeChild(live);
      removeEcho();
    }

    function answered(response, html) {
      settle();
      if (response.url && response.url.indexOf("/accounts/login/") !== -1) {
        showProblem("login");
        return;
      }
      if (response.headers.get(FRAGMENT_HEADER) !== "1") {
        showProblem("generic");
        return;
      }
      var retarget = response.headers.get("HX-Retarget");
      if (retarget) {
        var target = retarget === "#composer-problem" ? document.getElementById("composer-problem") : null;
        if (target) swapTurn(html, target, response.headers.get("HX-Reswap") || "innerHTML");
        return;
      }
      swapTurn(html);
      if (response.ok) turnSent(form);
    }

    fetch(form.action, {
      method: "POST",
      body: new URLSearchParams(new FormData(form)),
      credentials: "same-origin",
      headers: { Accept: "text/event-stream", "HX-Request": "true" }
    })
      .then(function (response) {
        var type = response.headers.get("Content-Type") || "";
        if (type.indexOf("text/event-stream") === -1) {
          return response.text().then(function (html) { answered(response, html); });
        }
        return readEvents(response.body, function (name, data) {
          if (name === "delta") {
            grow(data.text);
          } else if (name === "done") {
            settle();
            if (data.html !== undefined) {
              swapTurn(data.html);
              turnSent(form);
            } else {
              var problem = document.getElementById("composer-problem");
              if (problem && data.problem) swapTurn(data.problem, problem, "innerHTML");
              else showProblem("generic");
            }
          }
        });
      })
      .catch(function () {
        settle();
        showProblem("network");
      })
      .then(function () {
        settle();
        if (button) button.disabled = false;
        if (busy) busy.classList.remove("htmx-request");
        var text = document.getElementById("chat-text");
        if (text) text.focus();
      });
  }

  document.addEventListener("htmx:beforeRequest", function (event) {
    var form = event.detail.elt;
    if (!form || form.id !== "composer" || !form.dataset.stream || !canStream()) return;
    event.preventDefault(); // this turn is read as it is written instead (the echo stays)
    streamTurn(form);
  });

  // After Confirm, Reject, Undo or Ask again, focus follows the card to its outcome line (the
  // button pressed is gone with the card it was on); the answer marks what may take focus.
  var focusAfterSwap = false;
  function unmarkFocus() {
    Array.prototype.forEach.call(document.querySelectorAll("[data-focus-on-arrival]"), function (element) {
      element.removeAttribute("data-focus-on-arrival");
    });
  }
  document.addEventListener("DOMContentLoaded", unmarkFocus); // only what arrives later counts
  document.addEventListener("htmx:beforeRequest", function (event) {
    var elt = event.detail.elt;
    // Set only: the outcome's own follow-up requests (its reply loads at once) keep it.
    if (elt && elt.closest && elt.closest(".card-actions, .undo-form")) focusAfterSwap = true;
  });
  document.addEventListener("htmx:afterSettle", function () {
    var marked = document.querySelectorAll("[data-focus-on-arrival]");
    if (focusAfterSwap && marked.length) {
      focusAfterSwap = false;
      marked[marked.length - 1].focus();
    }
    unmarkFocus();
  });

  // Keep the newest turn in view: it sits right above the message form.
  document.addEventListener("htmx:afterSettle", function (event) {
    if (event.detail.target && event.detail.target.id === "messages") {
      var composer = document.getElementById("composer");
      if (composer) composer.scrollIntoView({ block: "end" });
    }
  });

  // An undo card that ran (its outcome names the card it took back, data-undid): that
  // card's "Undo" button, still on the page when the undo was asked for in the chat, gives
  // way to a note, and its item link follows the item to where the undo left it (the undo
  // outcome's own link: a created item is in the trash now, a deleted one back on its
  // page), as the history shows both after a reload.
  document.addEventListener("htmx:afterSettle", function () {
    var outcomes = document.querySelectorAll("article[data-undid]");
    Array.prototype.forEach.call(outcomes, function (outcome) {
      var selector = '.undo-area[data-undo-of="' + CSS.escape(outcome.dataset.undid) + '"]';
      var now = outcome.querySelector(":scope > .item-link a");
      Array.prototype.forEach.call(document.querySelectorAll(selector), function (area) {
        var form = area.querySelector(":scope > .undo-form");
        if (form) {
          var note = document.createElement("p");
          note.className = "hint undo-ran";
          note.textContent = outcome.dataset.undidText || "";
          area.replaceChild(note, form);
        }
        var card = area.parentElement && area.parentElement.closest("article");
        var stale = card && card.querySelector(":scope > .item-link a");
        if (now && stale) {
          stale.setAttribute("href", now.getAttribute("href"));
          stale.textContent = now.textContent;
        }
      });
      outcome.removeAttribute("data-undid");
    });
  });

  // Enter sends, Shift+Enter adds a line; never while an input method is composing
  // (Chinese input confirms its candidates with Enter). On a touch screen (no Shift key)
  // Return adds a line and the Send button sends; the hint says which.
  function touchFirst() {
    return !!(window.matchMedia && window.matchMedia("(pointer: coarse)").matches);
  }
  document.addEventListener("DOMContentLoaded", function () {
    var hint = document.getElementById("chat-hint");
    if (hint && hint.dataset.touch && touchFirst()) hint.textContent = hint.dataset.touch;
  });
  document.addEventListener("keydown", function (event) {
    var target = event.target;
    if (!target || target.id !== "chat-text" || touchFirst()) return;
    if (event.key !== "Enter" || event.shiftKey || event.isComposing || event.keyCode === 229) {
      return;
    }
    event.preventDefault();
    var form = target.form;
    var send = form && form.querySelector("button[type=submit]");
    if (!form || (send && send.disabled) || !target.value.trim()) return; // empty or in flight
    form.requestSubmit(send || undefined);
  });

  // The top bar's menu (a phone): the zone, language and account controls open below.
  document.addEventListener("DOMContentLoaded", function () {
    var toggle = document.querySelector(".menu-toggle");
    var more = document.getElementById("topbar-more");
    if (!toggle || !more) return;
    document.documentElement.classList.add("has-menu");
    toggle.hidden = false;
    toggle.addEventListener("click", function () {
      var open = !more.classList.contains("open");
      more.classList.toggle("open", open);
      toggle.setAttribute("aria-expanded", open ? "true" : "false");
    });
  });

  // A page restored from the back/forward cache shows what it held when it was left: a card
  // confirmed since would still read "waiting". Read the page again from the server (which
  // marks signed-in pages no-store, so this is the rare browser that kept one anyway).
  window.addEventListener("pageshow", function (event) {
    if (event.persisted) {
      window.location.reload();
    }
  });

  // A card's remaining time, live; at its expiry its buttons are disabled (the server
  // refuses an expired token anyway: this only says so before the click).
  function remainingText(ms) {
    var total = Math.max(0, Math.floor(ms / 1000));
    var minutes = Math.floor(total / 60);
    var seconds = total % 60;
    return minutes + ":" + (seconds < 10 ? "0" : "") + seconds;
  }

  function tickCards() {
    var now = Date.now();
    var cards = document.querySelectorAll("article.card[data-expires]");
    Array.prototype.forEach.call(cards, function (card) {
      var expires = Date.parse(card.dataset.expires);
      if (isNaN(expires)) return;
      var left = expires - now;
      var label = card.querySelector(".card-remaining");
      if (left > 0) {
        if (label) label.textContent = (card.dataset.remaining || "{time}").replace("{time}", remainingText(left));
        return;
      }
      card.removeAttribute("data-expires");
      card.classList.add("card-expired");
      Array.prototype.forEach.call(card.querySelectorAll("button"), function (button) {
        button.disabled = true;
      });
      if (label) label.textContent = "";
      var note = document.createElement("p");
      note.className = "card-expired-note";
      note.setAttribute("role", "status");
      note.textContent = card.dataset.expired || "";
      card.appendChild(note);
    });
  }

  document.addEventListener("DOMContentLoaded", function () {
    tickCards();
    window.setInterval(tickCards, 1000);
  });

  // The conversation list starts open on a wide screen (closed on a phone, above the chat).
  document.addEventListener("DOMContentLoaded", function () {
    var box = document.querySelector("#conversations > details");
    if (box && window.matchMedia && window.matchMedia("(min-width: 60rem)").matches) {
      box.open = true;
    }
    // A list's create form ("New todo") is open on a wide screen, folded on a phone.
    if (window.matchMedia && window.matchMedia("(min-width: 40.01rem)").matches) {
      Array.prototype.forEach.call(document.querySelectorAll("details[data-open-wide]"), function (d) {
        d.open = true;
      });
    }
  });

  // A list's checkbox completes its row: its form posts (version-checked, like the page's
  // own "Mark as done"); without JavaScript the form's button does it.
  document.addEventListener("change", function (event) {
    var box = event.target;
    if (box && box.matches && box.matches("input[data-submit-on-change]") && box.form) {
      box.form.requestSubmit();
    }
  });

  // Settings page: the zone list is searchable (typing narrows it to matching names), and
  // the browser's own zone is offered first, in a group of its own.
  document.addEventListener("DOMContentLoaded", function () {
    var search = document.getElementById("zone-search");
    var select = document.getElementById("time-zone");
    if (!search || !select) return;
    search.hidden = false;
    var browserZone = window.Intl && Intl.DateTimeFormat().resolvedOptions().timeZone;
    var known = browserZone && Array.prototype.some.call(select.options, function (option) {
      return option.value === browserZone;
    });
    if (known) {
      var group = document.createElement("optgroup");
      group.label = search.dataset.browserGroup || "";
      var option = document.createElement("option");
      option.value = browserZone;
      option.textContent = browserZone;
      group.appendChild(option);
      select.insertBefore(group, select.firstChild);
    }
    search.addEventListener("input", function () {
      var words = search.value.trim().toLowerCase().replace(/ /g, "_");
      var first = null;
      Array.prototype.forEach.call(select.querySelectorAll("optgroup"), function (group) {
        var any = false;
        Array.prototype.forEach.call(group.children, function (option) {
          var match = !words || option.value.toLowerCase().indexOf(words) !== -1;
          option.hidden = !match;
          if (match) { any = true; if (!first) first = option; }
        });
        group.hidden = !any;
      });
      if (words && first) select.value = first.value;
    });
  });

  // Settings page: offer the browser's own time zone when it differs from the saved one.
  document.addEventListener("DOMContentLoaded", function () {
    var suggestion = document.getElementById("zone-suggestion");
    var select = document.getElementById("time-zone");
    if (!suggestion || !select || !window.Intl) return;
    var browserZone = Intl.DateTimeFormat().resolvedOptions().timeZone;
    if (!browserZone || browserZone === suggestion.dataset.current) return;
    var known = Array.prototype.some.call(select.options, function (option) {
      return option.value === browserZone;
    });
    if (!known) return;
    suggestion.querySelector(".zone-name").textContent = browserZone;
    suggestion.hidden = false;
    suggestion.querySelector("[data-adopt-zone]").addEventListener("click", function () {
      select.value = browserZone;
      select.form.requestSubmit();
    });
  });
})();
