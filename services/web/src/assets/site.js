/* global document, window, navigator, location, history, setTimeout, clearTimeout, URL, fetch, DOMParser */
// githost's only script: progressive enhancement. Every page works without it.
(function () {
  'use strict';

  // Copy buttons next to read-only fields (clone URL, a new token).
  function addCopyButtons() {
    var fields = document.querySelectorAll('input[data-copy]');
    for (var i = 0; i < fields.length; i++) {
      (function (input) {
        if (!navigator.clipboard) return;
        var button = document.createElement('button');
        button.type = 'button';
        button.className = 'copy';
        button.textContent = 'Copy';
        button.setAttribute('aria-label', 'Copy to clipboard');
        button.addEventListener('click', function () {
          navigator.clipboard.writeText(input.value).then(function () {
            button.textContent = 'Copied';
            setTimeout(function () { button.textContent = 'Copy'; }, 1500);
          });
        });
        input.insertAdjacentElement('afterend', button);
      })(fields[i]);
    }
  }

  // #L10-L20 marks a range of lines; shift-click on a line number extends the range.
  var anchor = 0;
  function markLines() {
    var marked = document.querySelectorAll('table.code tr.selected');
    for (var i = 0; i < marked.length; i++) marked[i].classList.remove('selected');
    var m = /^#L(\d+)(?:-L(\d+))?$/.exec(location.hash);
    if (!m) return;
    var from = Number(m[1]);
    var to = Number(m[2] || m[1]);
    if (to < from) { var t = from; from = to; to = t; }
    for (var n = from; n <= to; n++) {
      var row = document.getElementById('L' + n);
      if (row) row.classList.add('selected');
    }
    var first = document.getElementById('L' + from);
    if (first && m[2]) first.scrollIntoView({ block: 'center' });
  }
  function lineClicks() {
    var table = document.querySelector('table.code');
    if (!table) return;
    table.addEventListener('click', function (event) {
      var link = event.target.closest && event.target.closest('td.ln a');
      if (!link) return;
      var n = Number(link.getAttribute('href').slice(2));
      if (event.shiftKey && anchor) {
        event.preventDefault();
        var from = Math.min(anchor, n);
        var to = Math.max(anchor, n);
        history.replaceState(null, '', '#L' + from + (to !== from ? '-L' + to : ''));
        markLines();
      } else {
        anchor = n;
      }
    });
  }

  // Unified or split diff without a reload; the links still work without this.
  function diffToggle() {
    var section = document.querySelector('section.diffs');
    // A large diff carries only the table shown: its links load the other one.
    if (!section || section.getAttribute('data-tables') === 'one') return;
    var links = section.querySelectorAll('a[data-diff-view]');
    for (var i = 0; i < links.length; i++) {
      links[i].addEventListener('click', function (event) {
        event.preventDefault();
        var mode = this.getAttribute('data-diff-view');
        section.setAttribute('data-view', mode);
        for (var k = 0; k < links.length; k++) {
          if (links[k].getAttribute('data-diff-view') === mode) links[k].setAttribute('aria-current', 'true');
          else links[k].removeAttribute('aria-current');
        }
        var url = new URL(location.href);
        url.searchParams.set('view', mode);
        history.replaceState(null, '', url.toString());
      });
    }
  }

  // A merge request's line comment form opens in place under the line; without script the
  // line number is a link to the page with the form open there.
  function lineCommentForms() {
    var template = document.getElementById('line-comment-template');
    var section = document.querySelector('section.diffs');
    if (!template || !section || !template.content) return;
    section.addEventListener('click', function (event) {
      var link = event.target.closest && event.target.closest('a.comment-link');
      if (!link || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
      var url = new URL(link.href);
      var m = /^(old|new):(\d+)$/.exec(url.searchParams.get('comment') || '');
      var path = url.searchParams.get('path');
      if (!m || !path) return;
      event.preventDefault();
      var open = document.querySelectorAll('tr.d-comment-form');
      for (var i = 0; i < open.length; i++) open[i].parentNode.removeChild(open[i]);
      var row = link.closest('tr');
      var form = template.content.firstElementChild.cloneNode(true);
      form.querySelector('input[name=file_path]').value = path;
      form.querySelector('input[name=line_number]').value = m[2];
      form.querySelector('input[name=diff_side]').value = m[1];
      form.querySelector('label').textContent = 'Comment on ' + path + ' line ' + m[2] + ' (' + m[1] + ')';
      var tr = document.createElement('tr');
      tr.className = 'd-comments d-comment-form';
      var td = document.createElement('td');
      td.colSpan = row.children.length;
      td.appendChild(form);
      tr.appendChild(td);
      row.parentNode.insertBefore(tr, row.nextSibling);
      form.querySelector('textarea').focus();
    });
  }

  // No page lists every branch and tag: the switcher's lists are the refs page's, fetched when
  // it is first opened and again, filtered on the server, as one types in its filter (its link
  // and its form still lead to that page if this fails).
  function lazyRefMenus() {
    var switchers = document.querySelectorAll('details.ref-switcher[data-refs]');
    for (var i = 0; i < switchers.length; i++) {
      (function (details) {
        var loaded = false;
        var asked = 0;
        var timer = 0;
        var input = details.querySelector('form.ref-filter input[name=q]');
        function load() {
          var url = new URL(details.getAttribute('data-refs'), location.href);
          if (input && input.value) url.searchParams.set('q', input.value);
          var mine = ++asked;
          fetch(url.toString(), { credentials: 'same-origin' })
            .then(function (res) { return res.ok ? res.text() : Promise.reject(new Error(String(res.status))); })
            .then(function (html) {
              if (mine !== asked) return;
              var lists = new DOMParser().parseFromString(html, 'text/html').querySelector('.ref-menu-lists');
              var here = details.querySelector('.ref-menu-lists');
              if (lists && here) here.parentNode.replaceChild(document.importNode(lists, true), here);
              loaded = true;
            })
            .catch(function () { loaded = false; });
        }
        details.addEventListener('toggle', function () {
          if (details.open && !loaded) load();
        });
        if (!input) return;
        input.addEventListener('input', function () {
          clearTimeout(timer);
          timer = setTimeout(load, 150);
        });
        input.form.addEventListener('submit', function (event) {
          event.preventDefault();
          clearTimeout(timer);
          load();
        });
      })(switchers[i]);
    }
  }

  // A diff over the page's budget lists its files; each file's link loads that file's changes
  // in place (without script it opens the page with that file shown).
  function diffsOnDemand() {
    var section = document.querySelector('section.diffs');
    if (!section) return;
    section.addEventListener('click', function (event) {
      var link = event.target.closest && event.target.closest('a[data-load-diff]');
      if (!link || event.ctrlKey || event.metaKey || event.shiftKey || event.button !== 0) return;
      var article = link.closest('article.diff-file');
      if (!article) return;
      event.preventDefault();
      link.textContent = 'Loading…';
      fetch(link.href, { credentials: 'same-origin' })
        .then(function (res) { return res.ok ? res.text() : Promise.reject(new Error(String(res.status))); })
        .then(function (html) {
          var got = new DOMParser().parseFromString(html, 'text/html').getElementById(article.id);
          if (!got || got.querySelector('a[data-load-diff]')) return Promise.reject(new Error('not in the answer'));
          var fresh = document.importNode(got, true);
          article.parentNode.replaceChild(fresh, article);
          var focus = fresh.querySelector('.diff-scroll');
          if (focus) focus.focus();
        })
        .catch(function () { location.href = link.href; });
    });
  }

  document.addEventListener('DOMContentLoaded', function () {
    lazyRefMenus();
    diffsOnDemand();
    addCopyButtons();
    markLines();
    lineClicks();
    diffToggle();
    lineCommentForms();
  });
  window.addEventListener('hashchange', markLines);
})();
