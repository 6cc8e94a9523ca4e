// A small element builder for the console's pages: no framework, the DOM as it is.
type Child = Node | string | number | null | undefined | false
type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>

/** `h('button', { type: 'button', onclick: go }, 'Reboot')`: `on*` attributes become listeners, `false`/null ones are left out. */
export function h<K extends keyof HTMLElementTagNameMap> (tag: K, attrs: Attrs = {}, ...children: Array<Child | Child[]>): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag)
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value)
    else if (value === true) el.setAttribute(name, '')
    else el.setAttribute(name, String(value))
  }
  append(el, ...children)
  return el
}

/** Appends children, flattening arrays and skipping empty ones. */
export function append (parent: Node, ...children: Array<Child | Child[]>): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue
    parent.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)))
  }
}

/** Replaces an element's children. */
export function replace (parent: Element, ...children: Array<Child | Child[]>): void {
  parent.replaceChildren()
  append(parent, ...children)
}
