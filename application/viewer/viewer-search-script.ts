/**
 * The search part of the viewer's script (inlined into VIEWER_SCRIPT, inside its closure:
 * it uses `ready`, `documentOf` and `openFold`). Search has the agent's semantics
 * (core/search/search-pattern.ts, docs/behaviour.md search): a literal matches as written or
 * in its JSON-escaped form; a regular expression runs on the stored JSON of each entry, and
 * only one the agent's linear-time engine would run is run here. A browser has no such
 * engine, so the page refuses what V8's linear engine refuses, by the same rules: no
 * back-references, no look-around, no ignoring case, no quantifier that would replicate its
 * body more than 16 times (nesting multiplies), and nothing that matches the empty string.
 */
export const VIEWER_SEARCH_SCRIPT = String.raw`
  var MAX_REPLICATION = 16;

  /** Capturing groups and whether any is named: what makes \1 or \k<name> a back-reference. */
  function groupsOf(pattern) {
    var count = 0, named = false, inClass = false;
    for (var at = 0; at < pattern.length; at += 1) {
      var character = pattern[at];
      if (character === '\\') { at += 1; continue; }
      if (inClass) { if (character === ']') inClass = false; continue; }
      if (character === '[') { inClass = true; continue; }
      if (character !== '(') continue;
      if (pattern[at + 1] !== '?') count += 1;
      else if (pattern[at + 2] === '<' && pattern[at + 3] !== '=' && pattern[at + 3] !== '!') { count += 1; named = true; }
    }
    return { count: count, named: named };
  }

  /** Why the linear engine would refuse a valid pattern, or null. */
  function linearRefusal(pattern) {
    var groups = groupsOf(pattern);
    var frames = [{ widest: 1 }];
    var last = 0;
    for (var at = 0; at < pattern.length; at += 1) {
      var character = pattern[at];
      var frame = frames[frames.length - 1];
      var bounds = null;
      if (character === '\\') {
        var digits = /^[1-9][0-9]*/.exec(pattern.slice(at + 1));
        if (digits && Number(digits[0]) <= groups.count) return 'back-references';
        if (pattern[at + 1] === 'k' && groups.named && pattern[at + 2] === '<') return 'back-references';
        at += 1;
        last = 1;
      } else if (character === '[') {
        for (at += 1; at < pattern.length && pattern[at] !== ']'; at += 1) if (pattern[at] === '\\') at += 1;
        last = 1;
      } else if (character === '(') {
        if (/^\(\?<?[=!]/.test(pattern.slice(at))) return 'look-around';
        frames.push({ widest: 1 });
        last = 0;
      } else if (character === ')') {
        last = frames.pop().widest;
        frame = frames[frames.length - 1];
      } else if (character === '*') bounds = [0, Infinity];
      else if (character === '+') bounds = [1, Infinity];
      else if (character === '?') bounds = last === 0 ? null : [0, 1];
      else if (character === '{' && /^\{[0-9]+(,[0-9]*)?\}/.test(pattern.slice(at))) {
        var counted = /^\{([0-9]+)(,([0-9]*))?\}/.exec(pattern.slice(at));
        bounds = [Number(counted[1]), counted[2] === undefined ? Number(counted[1]) : counted[3] === '' ? Infinity : Number(counted[3])];
        at += counted[0].length - 1;
      } else last = character === '|' || character === '^' || character === '$' ? 0 : 1;
      if (bounds !== null && last > 0) {
        if (bounds[0] > MAX_REPLICATION || (bounds[1] !== Infinity && bounds[1] > MAX_REPLICATION)) return 'a large counted repetition';
        var replicated = (bounds[1] === Infinity ? bounds[0] + 1 : bounds[1]) * last;
        if (replicated > MAX_REPLICATION) return 'a large counted repetition';
        last = 0;
        if (pattern[at + 1] === '?') at += 1;
        frame.widest = Math.max(frame.widest, replicated);
      } else if (last > 0) frame.widest = Math.max(frame.widest, last);
    }
    return null;
  }

  function escapeRegExp(text) { return text.replace(/[.*+?^$\{\}()|[\]\\\/]/g, '\\$&'); }

  /** The expression the agent's search would run, or a refusal with its verdict and reason. */
  function compile(pattern, regex, ignoreCase) {
    if (!regex) {
      var escaped = JSON.stringify(pattern).slice(1, -1);
      var source = escaped === pattern ? escapeRegExp(pattern) : escapeRegExp(pattern) + '|' + escapeRegExp(escaped);
      return { expression: new RegExp(source, 'g' + (ignoreCase ? 'i' : '')) };
    }
    var expression;
    try { expression = new RegExp(pattern, 'g'); }
    catch (error) { return { verdict: 'invalid', reason: 'not a valid regular expression (' + error.message + ')' }; }
    if (ignoreCase) return { verdict: 'unsafe', reason: 'a regular expression cannot ignore case in bounded time; spell the cases out (e.g. [Ee]rror) or search a literal with ignore case' };
    var refusal = linearRefusal(pattern);
    if (refusal !== null) return { verdict: 'unsafe', reason: 'the pattern needs ' + refusal + ', which cannot run in bounded time; use a literal or a simpler expression' };
    if (expression.test('')) return { verdict: 'unsafe', reason: 'the pattern matches the empty string, so it would match everywhere; anchor it to some text' };
    expression.lastIndex = 0;
    return { expression: expression };
  }

  function search(data, pattern, regex, ignoreCase) {
    var results = document.getElementById('search-results');
    results.textContent = '';
    results.removeAttribute('data-verdict');
    if (pattern.length === 0) return;
    var compiled = compile(pattern, regex, ignoreCase);
    if (!compiled.expression) {
      results.setAttribute('data-verdict', compiled.verdict);
      results.textContent = 'refused, as the agent\'s search would refuse it: ' + compiled.reason;
      return;
    }
    results.setAttribute('data-verdict', 'ok');
    var expression = compiled.expression;
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
          doc = doc || documentOf(data, fold, 'raw');
          var item = document.createElement('li');
          var link = document.createElement('a');
          link.href = '#';
          link.className = 'hit';
          link.setAttribute('data-hit-fold', fold.id);
          link.textContent = fold.id + ' · entry ' + part.entryId + ' · char ' + match.index;
          link.onclick = (function (id, offset) { return function (clicked) { clicked.preventDefault(); openFold(data, id, 'raw', offset); }; })(fold.id, doc.starts[part.entryId] + match.index);
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
  }

  document.getElementById('search-form').addEventListener('submit', function (event) {
    event.preventDefault();
    var pattern = document.getElementById('search-pattern').value;
    var regex = document.getElementById('search-regex').checked;
    var ignoreCase = document.getElementById('search-case').checked;
    ready.then(function (data) { search(data, pattern, regex, ignoreCase); });
  });
`;
