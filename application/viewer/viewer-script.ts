import { VIEWER_SEARCH_SCRIPT } from './viewer-search-script.ts';

/**
 * The page's only script, inlined: open a fold's source (decoded, or the exact stored bytes
 * one toggle away), paged, and search every fold's source. It reads the data the page embeds
 * (gzip, base64, in a JSON string) and nothing else: no network, no outside script.
 */
export const VIEWER_SCRIPT = String.raw`
(function () {
  'use strict';
  function loadData() {
    var encoded = JSON.parse(document.getElementById('viewer-data').textContent);
    var binary = atob(encoded);
    var bytes = new Uint8Array(binary.length);
    for (var index = 0; index < binary.length; index += 1) bytes[index] = binary.charCodeAt(index);
    var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
    return new Response(stream).text().then(JSON.parse);
  }
  var ready = loadData();
  var detail = document.getElementById('fold-detail');

  /** A stored entry as a person reads it: every JSON string shown as its text, each under its path. */
  function decodedText(raw) {
    var value;
    try { value = JSON.parse(raw); } catch (error) { return raw; }
    var lines = [];
    (function walk(node, path) {
      if (node !== null && typeof node === 'object') {
        var keys = Object.keys(node);
        if (keys.length === 0) lines.push(path + ': ' + (Array.isArray(node) ? '[]' : '{}'));
        keys.forEach(function (key) { walk(node[key], Array.isArray(node) ? path + '[' + key + ']' : (path ? path + '.' + key : key)); });
      } else if (typeof node === 'string' && (node.indexOf('\n') >= 0 || node.length > 120)) {
        lines.push(path + ':\n' + node);
      } else {
        lines.push(path + ': ' + (typeof node === 'string' ? node : JSON.stringify(node)));
      }
    })(value, '');
    return lines.join('\n');
  }

  function documentOf(data, fold, mode) {
    var pieces = ['fold ' + fold.id + ' · ' + fold.kind + ' · ' + fold.entryCount + ' entries · source sha256 ' + fold.sourceSha256 + '\n'];
    var length = pieces[0].length;
    var starts = {};
    function add(piece) { pieces.push(piece); length += piece.length; }
    fold.parts.forEach(function (part) {
      if (part.foldId) {
        var child = data.byId[part.foldId];
        add('\n[child fold ' + part.foldId + (child ? ' · ' + child.kind + ' · ' + child.brief.split('\n')[0] : '') + ']\n');
      } else {
        add('\n── entry ' + part.entryId + ' · sha256 ' + part.sha256.slice(0, 16) + '… (verified)\n');
        starts[part.entryId] = length;
        var source = data.sources[part.sha256];
        add(mode === 'raw' ? source : decodedText(source));
        add('\n');
      }
    });
    return { text: pieces.join(''), starts: starts };
  }

  function button(text, className) {
    var element = document.createElement('button');
    element.textContent = text;
    element.className = className;
    return element;
  }

  function openFold(data, id, mode, offset) {
    var fold = data.byId[id];
    if (!fold) return;
    var doc = documentOf(data, fold, mode);
    var PAGE = data.pageChars;
    var pages = Math.max(1, Math.ceil(doc.text.length / PAGE));
    var page = Math.min(pages - 1, Math.floor((offset || 0) / PAGE));
    detail.textContent = '';
    var head = document.createElement('h3');
    head.textContent = fold.id + ' — ' + fold.kind + ', brief by ' + (fold.provenance === 'supplied' ? fold.origin : 'the runtime');
    detail.appendChild(head);
    var nav = document.createElement('div');
    nav.className = 'pager';
    var toggle = button(mode === 'raw' ? 'show decoded text' : 'show exact stored bytes', 'source-mode');
    var previous = button('◀ previous', 'page-previous');
    var next = button('next ▶', 'page-next');
    var info = document.createElement('span');
    nav.appendChild(toggle);
    nav.appendChild(previous);
    nav.appendChild(info);
    nav.appendChild(next);
    detail.appendChild(nav);
    var body = document.createElement('pre');
    body.className = 'source';
    detail.appendChild(body);
    function show() {
      body.textContent = doc.text.slice(page * PAGE, (page + 1) * PAGE);
      info.textContent = ' page ' + (page + 1) + ' of ' + pages + ' (' + doc.text.length + ' chars, ' + (mode === 'raw' ? 'exact stored bytes' : 'decoded') + ') ';
      previous.disabled = page === 0;
      next.disabled = page >= pages - 1;
    }
    toggle.onclick = function () { openFold(data, id, mode === 'raw' ? 'decoded' : 'raw', 0); };
    previous.onclick = function () { if (page > 0) { page -= 1; show(); } };
    next.onclick = function () { if (page < pages - 1) { page += 1; show(); } };
    show();
    detail.setAttribute('data-open', id);
    detail.setAttribute('data-mode', mode);
    detail.scrollIntoView({ block: 'nearest' });
  }

  ready.then(function (data) {
    data.byId = {};
    data.folds.forEach(function (fold) { data.byId[fold.id] = fold; });
    Array.prototype.forEach.call(document.querySelectorAll('[data-fold]'), function (element) {
      element.addEventListener('click', function (event) { event.preventDefault(); openFold(data, element.getAttribute('data-fold'), 'decoded', 0); });
    });
    document.body.setAttribute('data-ready', 'true');
  }, function (error) {
    detail.textContent = 'this page could not read its embedded data: ' + error.message;
  });

  ${VIEWER_SEARCH_SCRIPT}
})();
`;
