/**
 * The few DOM members the reader uses, typed here because the project compiles without the DOM
 * lib (linkedom's own declarations refer to DOM globals that are then unknown, so they read as
 * `any`). Keeping the shapes small keeps the reader honest about what it touches.
 */
export interface DomNode {
  readonly nodeType: number;
  readonly nodeName: string;
  readonly parentNode: DomNode | null;
  readonly ownerDocument: DomDocument;
  readonly childNodes: ArrayLike<DomNode>;
  textContent: string | null;
}

export interface DomElement extends DomNode {
  readonly tagName: string;
  readonly children: ArrayLike<DomElement>;
  readonly firstElementChild: DomElement | null;
  readonly nextElementSibling: DomElement | null;
  readonly parentElement: DomElement | null;
  innerHTML: string;
  getAttribute(name: string): string | null;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  hasAttribute(name: string): boolean;
  querySelector(selectors: string): DomElement | null;
  querySelectorAll(selectors: string): ArrayLike<DomElement>;
  remove(): void;
  replaceWith(...nodes: (DomNode | string)[]): void;
}

export interface DomDocument extends DomNode {
  readonly documentElement: DomElement | null;
  readonly head: DomElement | null;
  readonly body: DomElement | null;
  readonly title: string;
  querySelector(selectors: string): DomElement | null;
  querySelectorAll(selectors: string): ArrayLike<DomElement>;
  createElement(tagName: string): DomElement;
  createTextNode(text: string): DomNode;
}

export const elementNode = 1;
export const textNode = 3;
