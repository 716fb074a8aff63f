import {
  type ApiDeclaredItem,
  ApiDocumentedItem,
  type ApiEntryPoint,
  type ApiItem,
  ApiItemKind,
  ApiParameterListMixin,
  ApiPropertyItem,
  ApiReturnTypeMixin,
  type Excerpt,
} from '@microsoft/api-extractor-model';
import {
  type DocBlock,
  type DocCodeSpan,
  type DocEscapedText,
  type DocFencedCode,
  type DocHtmlEndTag,
  type DocHtmlStartTag,
  type DocLinkTag,
  type DocNode,
  DocNodeKind,
  type DocPlainText,
  type DocSection,
} from '@microsoft/tsdoc';
import type { EntryModel } from './api-models.js';

/**
 * The API reference as markdown pages, one per entry point, from API Extractor's doc models.
 *
 * Written here rather than with `api-documenter markdown`: that tool names each page by the
 * lowercased name, so `Gate` (the component) and `gate` (the descriptor helper) of
 * `@agate/core` would be one file (rushstack issue 1308), and it writes one page per member
 * (about 600 here) where a page per entry point keeps an entry's names one search away.
 */

/** The site path (under docs/) of an entry point's page: `api/core`, `api/core-guards`. */
export function entryPagePath(importPath: string): string {
  return `api/${importPath.replace(/^@agate\//, '').replaceAll('/', '-')}`;
}

/** The group an exported name is listed under, in page order. */
const GROUPS = [
  'Components',
  'Hooks',
  'Functions',
  'Classes',
  'Interfaces',
  'Types',
  'Variables',
  'Enums',
  'Namespaces',
] as const;
type Group = (typeof GROUPS)[number];

/** Components are functions named in PascalCase that return something React renders. */
export function isComponent(item: ApiItem): boolean {
  if (item.kind !== ApiItemKind.Function || !/^[A-Z]/.test(item.displayName)) return false;
  const returns = ApiReturnTypeMixin.isBaseClassOf(item) ? item.returnTypeExcerpt.text : '';
  return /ReactNode|ReactElement|JSX\.Element/.test(returns);
}

function groupOf(item: ApiItem): Group | undefined {
  switch (item.kind) {
    case ApiItemKind.Function:
      if (isComponent(item)) return 'Components';
      return /^use[A-Z]/.test(item.displayName) ? 'Hooks' : 'Functions';
    case ApiItemKind.Class:
      return 'Classes';
    case ApiItemKind.Interface:
      return 'Interfaces';
    case ApiItemKind.TypeAlias:
      return 'Types';
    case ApiItemKind.Variable:
      return 'Variables';
    case ApiItemKind.Enum:
      return 'Enums';
    case ApiItemKind.Namespace:
      return 'Namespaces';
    default:
      return undefined;
  }
}

/** The anchor of an exported name on its entry's page; case kept, so `Gate` and `gate` differ. */
export function anchorOf(name: string): string {
  return name.replace(/[^A-Za-z0-9_$-]/g, '-');
}

/** Text for markdown: characters markdown or the page's HTML would read as syntax are escaped. */
export function escapeMarkdown(text: string): string {
  return text
    .replaceAll('&', '&amp;')
    .replaceAll('<', '&lt;')
    .replaceAll('>', '&gt;')
    .replace(/([\\`*_[\]|#])/g, '\\$1');
}

/** An inline code span that holds any text, backticks included. */
function code(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const longest = Math.max(0, ...(flat.match(/`+/g) ?? []).map((run) => run.length));
  const fence = '`'.repeat(longest + 1);
  return longest > 0 ? `${fence} ${flat} ${fence}` : `${fence}${flat}${fence}`;
}

/** A TSDoc node as markdown. */
export function renderDoc(node: DocNode | undefined): string {
  if (node === undefined) return '';
  switch (node.kind) {
    case DocNodeKind.PlainText:
      return escapeMarkdown((node as DocPlainText).text);
    case DocNodeKind.EscapedText:
      return escapeMarkdown((node as DocEscapedText).decodedText);
    case DocNodeKind.ErrorText:
      return escapeMarkdown((node as unknown as { text: string }).text);
    case DocNodeKind.SoftBreak:
      return ' ';
    case DocNodeKind.CodeSpan:
      return code((node as DocCodeSpan).code);
    case DocNodeKind.FencedCode: {
      const fenced = node as DocFencedCode;
      return `\n\`\`\`${fenced.language || 'ts'}\n${fenced.code.replace(/\n$/, '')}\n\`\`\`\n`;
    }
    case DocNodeKind.HtmlStartTag:
    case DocNodeKind.HtmlEndTag:
      // `<Gate>` in a comment is a component's name, not markup: shown as written.
      return code((node as DocHtmlStartTag | DocHtmlEndTag).emitAsHtml());
    case DocNodeKind.LinkTag: {
      const link = node as DocLinkTag;
      if (link.urlDestination !== undefined) {
        const text = link.linkText ?? link.urlDestination;
        return `[${escapeMarkdown(text)}](${link.urlDestination})`;
      }
      const target = link.codeDestination?.memberReferences
        .map((m) => m.memberIdentifier?.identifier ?? '')
        .join('.');
      return code(link.linkText ?? target ?? '');
    }
    case DocNodeKind.Paragraph:
      return `${node.getChildNodes().map(renderDoc).join('').trim()}\n\n`;
    default:
      return node.getChildNodes().map(renderDoc).join('');
  }
}

function section(doc: DocSection | DocBlock | undefined): string {
  if (doc === undefined) return '';
  const content = 'content' in doc ? doc.content : doc;
  return renderDoc(content).trim();
}

/** The names a signature refers to that this entry point exports, in order, once each. */
function referencedNames(excerpts: Excerpt[], entryPoint: ApiEntryPoint, self: string): string[] {
  const names = excerpts.flatMap((excerpt) =>
    excerpt.spannedTokens
      .filter((token) => token.kind === 'Reference' && token.text !== self)
      .map((token) => token.text)
      .filter((text) => entryPoint.findMembersByName(text).length > 0),
  );
  return [...new Set(names)];
}

function signatureExcerpts(item: ApiItem): Excerpt[] {
  const excerpts: Excerpt[] = [];
  if (ApiParameterListMixin.isBaseClassOf(item))
    excerpts.push(...item.parameters.map((p) => p.parameterTypeExcerpt));
  if (ApiReturnTypeMixin.isBaseClassOf(item)) excerpts.push(item.returnTypeExcerpt);
  if (item instanceof ApiPropertyItem) excerpts.push(item.propertyTypeExcerpt);
  if (item.kind === ApiItemKind.TypeAlias)
    excerpts.push((item as unknown as { typeExcerpt: Excerpt }).typeExcerpt);
  return excerpts;
}

function declaration(item: ApiItem): string {
  return (item as ApiDeclaredItem).getExcerptWithModifiers?.() ?? item.displayName;
}

function summaryOf(item: ApiItem): string {
  return item instanceof ApiDocumentedItem ? section(item.tsdocComment?.summarySection) : '';
}

/** The members of an interface or class, one line each: signature, then its summary. */
function memberList(item: ApiItem): string {
  const lines = item.members.map((member) => {
    const summary = summaryOf(member).replace(/\n+/g, ' ');
    return `- ${code(declaration(member))}${summary ? ` — ${summary}` : ''}`;
  });
  return lines.join('\n');
}

/** The props of a component: its `props` type's own members, or those of what it combines. */
function propsOf(item: ApiItem, entryPoint: ApiEntryPoint): string {
  if (!ApiParameterListMixin.isBaseClassOf(item)) return '';
  const [props] = item.parameters;
  if (props === undefined) return '';
  const out: string[] = [
    '#### Props',
    '',
    code(`${props.name}: ${props.parameterTypeExcerpt.text}`),
    '',
  ];
  const seen = new Set<string>();
  const expand = (name: string): void => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const target of entryPoint.findMembersByName(name)) {
      if (target.kind === ApiItemKind.Interface) {
        out.push(`From [${name}](#${anchorOf(name)}):`, '', memberList(target), '');
      } else if (target.kind === ApiItemKind.TypeAlias) {
        out.push(`${code(declaration(target))}`, '');
        for (const inner of referencedNames(signatureExcerpts(target), entryPoint, name))
          expand(inner);
      }
    }
  };
  for (const name of referencedNames([props.parameterTypeExcerpt], entryPoint, item.displayName))
    expand(name);
  return out.join('\n');
}

function itemSection(item: ApiItem, entryPoint: ApiEntryPoint, anchor: string): string {
  const out: string[] = [`### ${item.displayName} {#${anchor}}`, ''];
  out.push('```ts', declaration(item), '```', '');
  const comment = item instanceof ApiDocumentedItem ? item.tsdocComment : undefined;
  if (comment?.deprecatedBlock)
    out.push(`> **Deprecated:** ${section(comment.deprecatedBlock)}`, '');
  const summary = section(comment?.summarySection);
  if (summary) out.push(summary, '');
  const remarks = section(comment?.remarksBlock);
  if (remarks) out.push(remarks, '');
  if (
    ApiParameterListMixin.isBaseClassOf(item) &&
    item.parameters.length > 0 &&
    !isComponent(item)
  ) {
    out.push('#### Parameters', '');
    for (const p of item.parameters) {
      const doc = section(p.tsdocParamBlock).replace(/\n+/g, ' ');
      out.push(
        `- ${code(`${p.name}${p.isOptional ? '?' : ''}: ${p.parameterTypeExcerpt.text}`)}${doc ? ` — ${doc}` : ''}`,
      );
    }
    out.push('');
  }
  if (isComponent(item)) out.push(propsOf(item, entryPoint), '');
  const returns = section(comment?.returnsBlock);
  if (returns) out.push(`**Returns:** ${returns}`, '');
  for (const block of comment?.customBlocks ?? []) {
    const tag = block.blockTag.tagName.replace(/^@/, '');
    out.push(`**${tag[0]?.toUpperCase()}${tag.slice(1)}:**`, '', section(block), '');
  }
  if (
    item.kind === ApiItemKind.Interface ||
    item.kind === ApiItemKind.Class ||
    item.kind === ApiItemKind.Enum
  ) {
    if (item.members.length > 0) out.push('#### Members', '', memberList(item), '');
  }
  const uses = referencedNames(signatureExcerpts(item), entryPoint, item.displayName);
  if (uses.length > 0)
    out.push(`Uses: ${uses.map((n) => `[${n}](#${anchorOf(n)})`).join(', ')}`, '');
  return out.join('\n');
}

/** The page of one entry point. */
export function entryPage(model: EntryModel, all: EntryModel[]): string {
  const [entryPoint] = model.apiPackage.entryPoints;
  const others = all.filter((m) => m.packageName === model.packageName && m !== model);
  const out: string[] = [
    '---',
    `title: ${JSON.stringify(`${model.importPath} API`)}`,
    'outline: [2, 3]',
    '---',
    '',
    `# ${model.importPath}`,
    '',
    `The public API of ${code(`import { … } from '${model.importPath}'`)}, made from the package's published ${code('.d.ts')} files with the settings of its API report (${code(`packages/…/api/${model.entry.report}`)}).`,
    '',
  ];
  if (others.length > 0) {
    out.push(
      `Other entry points of ${code(model.packageName)}: ${others.map((m) => `[${m.importPath}](/${entryPagePath(m.importPath)})`).join(', ')}.`,
      '',
    );
  }
  if (entryPoint === undefined || entryPoint.members.length === 0) {
    out.push('This entry point exports nothing.');
    return out.join('\n');
  }
  const used = new Map<string, number>();
  const byGroup = new Map<Group, ApiItem[]>();
  for (const item of entryPoint.members) {
    const group = groupOf(item);
    if (group === undefined) continue;
    byGroup.set(group, [...(byGroup.get(group) ?? []), item]);
  }
  // Headings are read by Vue inside v-pre, so `{{` in a signature prints as written.
  out.push('::: v-pre', '');
  for (const group of GROUPS) {
    const items = (byGroup.get(group) ?? []).sort((a, b) =>
      a.displayName.localeCompare(b.displayName),
    );
    if (items.length === 0) continue;
    out.push(`## ${group}`, '');
    for (const item of items) {
      const base = anchorOf(item.displayName);
      const count = (used.get(base) ?? 0) + 1;
      used.set(base, count);
      out.push(itemSection(item, entryPoint, count === 1 ? base : `${base}-${count}`));
    }
  }
  out.push(':::', '');
  return out.join('\n');
}

/** The reference's index page: each package and its entry points. */
export function indexPage(models: EntryModel[]): string {
  const out = [
    '# API reference',
    '',
    'One page per entry point, generated from the published declarations at build time.',
    '',
  ];
  for (const model of models) {
    const count = model.apiPackage.entryPoints[0]?.members.length ?? 0;
    out.push(`- [${model.importPath}](/${entryPagePath(model.importPath)}) — ${count} exports`);
  }
  out.push('');
  return out.join('\n');
}
