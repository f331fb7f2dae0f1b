/**
 * The page's only script, inlined: open a fold's exact source (paged) and search every fold's
 * source. It reads the JSON the page embeds and nothing else (no network, no outside script).
 * Search has the agent's semantics (docs/behaviour.md, search): a literal matches as written
 * or in its JSON-escaped form, a regular expression runs on the stored JSON of each entry.
 */
export const VIEWER_SCRIPT = String.raw`
(function () {
  'use strict';
  var data = JSON.parse(document.getElementById('viewer-data').textContent);
  var PAGE = data.pageChars;
  var folds = {};
  data.folds.forEach(function (fold) { folds[fold.id] = fold; });
  var detail = document.getElementById('fold-detail');

  function documentOf(fold) {
    var pieces = ['fold ' + fold.id + ' · ' + fold.kind + ' · ' + fold.entryCount + ' entries · source sha256 ' + fold.sourceSha256 + '\n'];
    var starts = {};
    fold.parts.forEach(function (part) {
      if (part.foldId) {
        var child = folds[part.foldId];
        pieces.push('\n[child fold ' + part.foldId + (child ? ' · ' + child.kind + ' · ' + child.brief.split('\n')[0] : '') + ']\n');
      } else {
        pieces.push('\n── entry ' + part.entryId + ' · sha256 ' + part.sha256.slice(0, 16) + '… (verified)\n');
        starts[part.entryId] = pieces.join('').length;
        pieces.push(data.sources[part.sha256]);
        pieces.push('\n');
      }
    });
    return { text: pieces.join(''), starts: starts };
  }

  function openFold(id, offset) {
    var fold = folds[id];
    if (!fold) return;
    var doc = documentOf(fold);
    var pages = Math.max(1, Math.ceil(doc.text.length / PAGE));
    var page = Math.min(pages - 1, Math.floor((offset || 0) / PAGE));
    detail.textContent = '';
    var head = document.createElement('h3');
    head.textContent = fold.id + ' — ' + fold.kind + ', brief by ' + (fold.provenance === 'supplied' ? fold.origin : 'the runtime');
    detail.appendChild(head);
    var nav = document.createElement('div');
    nav.className = 'pager';
    var info = document.createElement('span');
    var previous = document.createElement('button');
    var next = document.createElement('button');
    previous.textContent = '◀ previous';
    next.textContent = 'next ▶';
    previous.className = 'page-previous';
    next.className = 'page-next';
    nav.appendChild(previous);
    nav.appendChild(info);
    nav.appendChild(next);
    detail.appendChild(nav);
    var body = document.createElement('pre');
    body.className = 'source';
    detail.appendChild(body);
    function show() {
      body.textContent = doc.text.slice(page * PAGE, (page + 1) * PAGE);
      info.textContent = ' page ' + (page + 1) + ' of ' + pages + ' (' + doc.text.length + ' chars) ';
      previous.disabled = page === 0;
      next.disabled = page >= pages - 1;
    }
    previous.onclick = function () { if (page > 0) { page -= 1; show(); } };
    next.onclick = function () { if (page < pages - 1) { page += 1; show(); } };
    show();
    detail.setAttribute('data-open', id);
    detail.scrollIntoView({ block: 'nearest' });
  }

  Array.prototype.forEach.call(document.querySelectorAll('[data-fold]'), function (element) {
    element.addEventListener('click', function (event) { event.preventDefault(); openFold(element.getAttribute('data-fold'), 0); });
  });

  function escapeRegExp(text) { return text.replace(/[.*+?^$\{\}()|[\]\\\/]/g, '\\$&'); }
  function compile(pattern, regex, ignoreCase) {
    var flags = 'g' + (ignoreCase ? 'i' : '');
    if (regex) return new RegExp(pattern, flags);
    var escaped = JSON.stringify(pattern).slice(1, -1);
    return new RegExp(escaped === pattern ? escapeRegExp(pattern) : escapeRegExp(pattern) + '|' + escapeRegExp(escaped), flags);
  }

  var results = document.getElementById('search-results');
  document.getElementById('search-form').addEventListener('submit', function (event) {
    event.preventDefault();
    var pattern = document.getElementById('search-pattern').value;
    results.textContent = '';
    if (pattern.length === 0) return;
    var expression;
    try { expression = compile(pattern, document.getElementById('search-regex').checked, document.getElementById('search-case').checked); }
    catch (error) { results.textContent = 'not a valid regular expression: ' + error.message; return; }
    var hits = 0;
    var seen = {};
    data.folds.forEach(function (fold) {
      var doc = null;
      fold.parts.forEach(function (part) {
        if (!part.sha256 || hits >= 200) return;
        var key = fold.id + ' ' + part.entryId;
        if (seen[key]) return;
        seen[key] = true;
        var text = data.sources[part.sha256];
        expression.lastIndex = 0;
        for (var match = expression.exec(text); match !== null && hits < 200; match = expression.exec(text)) {
          if (match[0].length === 0) expression.lastIndex += 1;
          hits += 1;
          doc = doc || documentOf(fold);
          var item = document.createElement('li');
          var link = document.createElement('a');
          link.href = '#';
          link.className = 'hit';
          var at = doc.starts[part.entryId] + match.index;
          link.setAttribute('data-hit-fold', fold.id);
          link.textContent = fold.id + ' · entry ' + part.entryId + ' · char ' + match.index;
          link.onclick = (function (id, offset) { return function (clicked) { clicked.preventDefault(); openFold(id, offset); }; })(fold.id, at);
          var excerpt = document.createElement('code');
          excerpt.textContent = ' …' + text.slice(Math.max(0, match.index - 60), match.index + match[0].length + 60) + '…';
          item.appendChild(link);
          item.appendChild(excerpt);
          results.appendChild(item);
        }
      });
    });
    var summary = document.createElement('p');
    summary.id = 'search-summary';
    summary.textContent = hits === 0 ? 'no matches in ' + data.folds.length + ' folds (exact, verified source)' : hits + (hits >= 200 ? '+' : '') + ' matches (exact, verified source)';
    results.insertBefore(summary, results.firstChild);
  });
})();
`;
