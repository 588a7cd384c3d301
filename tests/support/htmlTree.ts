/**
 * A small HTML parser for the reports' tests: elements with attributes and text, and a refusal
 * (thrown) of any end tag that does not close the open element, so a test reads the structure the
 * browser builds from a well-formed report instead of matching substrings.
 */
export interface HtmlNode {
  tag: string;
  attrs: Record<string, string>;
  children: HtmlNode[];
  /** Text directly inside, entities decoded. */
  text: string;
  parent: HtmlNode | null;
}

const VOID = new Set(['meta', 'br', 'hr', 'img', 'input', 'link']);
const RAW = new Set(['style', 'script']);

const decode = (s: string): string =>
  s
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&quot;/g, '"')
    .replace(/&#39;/g, "'")
    .replace(/&amp;/g, '&');

export function parseHtml(html: string): HtmlNode {
  const root: HtmlNode = { tag: '#root', attrs: {}, children: [], text: '', parent: null };
  let open = root;
  const token =
    /<!--[\s\S]*?-->|<!doctype[^>]*>|<\/([a-zA-Z][\w-]*)\s*>|<([a-zA-Z][\w-]*)((?:\s+[\w:-]+(?:="[^"]*")?)*)\s*(\/?)>|([^<]+)/gi;
  let m: RegExpExecArray | null;
  while ((m = token.exec(html)) !== null) {
    const [whole, close, tag, attrText, selfClose, text] = m;
    if (text !== undefined) {
      open.text += decode(text);
    } else if (close !== undefined) {
      if (open.tag !== close.toLowerCase())
        throw new Error(`</${close}> closes <${open.tag}> at offset ${m.index}`);
      open = open.parent ?? root;
    } else if (tag !== undefined) {
      const attrs: Record<string, string> = {};
      for (const a of (attrText ?? '').matchAll(/([\w:-]+)(?:="([^"]*)")?/g))
        attrs[a[1]!.toLowerCase()] = decode(a[2] ?? '');
      const node: HtmlNode = {
        tag: tag.toLowerCase(),
        attrs,
        children: [],
        text: '',
        parent: open,
      };
      open.children.push(node);
      if (RAW.has(node.tag)) {
        const end = html.toLowerCase().indexOf(`</${node.tag}>`, token.lastIndex);
        if (end < 0) throw new Error(`<${node.tag}> is never closed`);
        node.text = html.slice(token.lastIndex, end);
        token.lastIndex = end + node.tag.length + 3;
      } else if (!VOID.has(node.tag) && selfClose !== '/') {
        open = node;
      }
    } else if (!/^<!/.test(whole)) {
      throw new Error(`unparsed markup at offset ${m.index}: ${whole.slice(0, 40)}`);
    }
  }
  if (open !== root) throw new Error(`<${open.tag}> is never closed`);
  return root;
}

/** Every descendant matching `test`, in document order. */
export function findAll(node: HtmlNode, test: (n: HtmlNode) => boolean): HtmlNode[] {
  const out: HtmlNode[] = [];
  const walk = (n: HtmlNode): void => {
    for (const c of n.children) {
      if (test(c)) out.push(c);
      walk(c);
    }
  };
  walk(node);
  return out;
}

/** The one descendant matching `test`; throws when there is none or more than one. */
export function findOne(node: HtmlNode, test: (n: HtmlNode) => boolean, what: string): HtmlNode {
  const found = findAll(node, test);
  if (found.length !== 1) throw new Error(`${what}: ${found.length} matches, expected 1`);
  return found[0]!;
}

/** All text inside, in order. */
export function textOf(node: HtmlNode): string {
  return node.text + node.children.map(textOf).join('');
}

export const byTag = (tag: string) => (n: HtmlNode) => n.tag === tag;
export const byAttr = (name: string, value: string) => (n: HtmlNode) => n.attrs[name] === value;
export const byClass = (cls: string) => (n: HtmlNode) =>
  (n.attrs.class ?? '').split(/\s+/).includes(cls);
export const section = (label: string) => (n: HtmlNode) =>
  n.tag === 'section' && n.attrs['aria-label'] === label;
