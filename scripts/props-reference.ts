/**
 * Writes docs/props.md, the reference of `echomq-lambda/cdk`'s props, from their TSDoc: each
 * prop's type, whether it is required, its default (its `@default` tag, aws-cdk-lib's
 * convention, which the published declarations keep) and its description. Run it after changing a prop or its comment:
 * `npx tsx scripts/props-reference.ts`; a test fails while the page and the code differ.
 * Reads the sources with the TypeScript compiler's syntax tree (the `typescript` package's API).
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { getJSDocTags, getTextOfJSDocComment, type Node } from 'typescript/unstable/ast';
import {
  isArrowFunction,
  isIdentifier,
  isInterfaceDeclaration,
  isObjectLiteralExpression,
  isPropertyAssignment,
  isPropertySignatureDeclaration,
  isTypeAliasDeclaration,
  isTypeLiteralNode,
  isTypeReferenceNode,
} from 'typescript/unstable/ast/is';
import { API } from 'typescript/unstable/sync';
import { CACHE_KINDS } from '../infra/cache/registry.js';

export const PAGE = fileURLToPath(new URL('../docs/props.md', import.meta.url));
const ROOT = fileURLToPath(new URL('../', import.meta.url));

interface Section {
  /** The name users import. */
  readonly title: string;
  /** What the section is for, in one sentence. */
  readonly about: string;
  /** The declarations whose members it lists, in order: found by name in infra/. */
  readonly from: readonly string[];
  /** Members the user never sets (the cache kind, set by the factory). */
  readonly omit?: readonly string[];
}

/**
 * The sections before the factories of `EchoMqCache`, which follow in the registry's order
 * (each kind's `factory` in infra/cache/<kind>/kind.ts: its name, TSDoc and options type).
 */
const SECTIONS: readonly Section[] = [
  {
    title: 'EchoMqProps',
    about: '`new EchoMq(scope, id, props)`.',
    from: ['EchoMqProps'],
  },
  {
    title: 'EchoMqHttp',
    about:
      'The `http` prop: where the HTTP face is served (one of these, or `HttpOptions` alone for a new HTTP API), with `HttpOptions` beside it.',
    from: ['EchoMqOnHttpApi', 'EchoMqOnRestApi', 'EchoMqOnFunctionUrl'],
  },
  {
    title: 'EchoMqSqs',
    about: 'The `sqs` prop: the queues of the SQS face, with `SqsOptions` beside them.',
    from: ['EchoMqSqs'],
  },
  {
    title: 'EchoMqOptions',
    about: "The `options` prop: the functions' runtime, logs and alarms.",
    from: ['EchoMqOptions'],
  },
  {
    title: 'HttpOptions',
    about: '`http`: the HTTP function and the API the construct makes.',
    from: ['HttpOptions'],
  },
  {
    title: 'ApiAuth',
    about: '`http.auth`: who may call the routes.',
    from: ['ApiAuth'],
  },
  {
    title: 'SqsOptions',
    about: '`sqs`: the SQS function and the queues the construct makes.',
    from: ['SqsOptions'],
  },
];

/** The sections after the factories. */
const LAST_SECTIONS: readonly Section[] = [
  {
    title: 'ExistingIamAuth',
    about: '`ExistingOptions.iam`: ElastiCache IAM authentication.',
    from: ['ExistingIamAuth'],
  },
];

interface Row {
  readonly name: string;
  readonly type: string;
  readonly required: boolean;
  readonly defaultText: string;
  readonly description: string;
}

/**
 * A member's default: the text of its `@default` tag, as the compiler reads it; a member without a
 * comment of its own takes the tag of its union branch's comment (`inherited`).
 */
function defaultOf(node: Node, inherited: string): string {
  const tag = getJSDocTags(node).find((each) => each.tagName.getText() === 'default');
  const text =
    tag === undefined
      ? /@default\s+([^@]*)/.exec(inherited)?.[1]
      : getTextOfJSDocComment(tag.comment);
  return (text ?? '').replace(/\s+/g, ' ').trim();
}

/** A comment's prose on one line, without its tags. */
function proseOf(comment: string): string {
  return comment
    .replace(/(^|\n)@[\s\S]*$/, '')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The TSDoc comment above a node (the last one in its leading trivia), on one line. */
function commentOf(node: Node, text: string): string {
  const trivia = text.slice(node.pos, node.getStart());
  const docs = [...trivia.matchAll(/\/\*\*([\s\S]*?)\*\//g)];
  return (docs.at(-1)?.[1] ?? '').replace(/^\s*\* ?/gm, '').trim();
}

/**
 * The property signatures under a declaration. A member of a union's object type without a
 * comment of its own takes the comment above its object type (`EchoMqHttp`'s branches).
 */
function rowsOf(node: Node, text: string, inherited = ''): Row[] {
  const rows: Row[] = [];
  // A union's branch comment stands before its `|`, outside the branch's own trivia.
  let previousEnd = node.pos;
  node.forEachChild((child) => {
    const before = text.slice(previousEnd, child.getStart());
    previousEnd = child.end;
    if (isPropertySignatureDeclaration(child)) {
      const member = child;
      const own = commentOf(child, text);
      rows.push({
        name: member.name.getText(),
        type: member.type === undefined ? '' : member.type.getText().replace(/\s+/g, ' '),
        required: text[member.name.end] !== '?',
        defaultText: defaultOf(child, own === '' ? inherited : ''),
        description: proseOf(own || inherited),
      });
    } else if (isTypeLiteralNode(child)) {
      const branch = [...before.matchAll(/\/\*\*([\s\S]*?)\*\//g)].at(-1)?.[1] ?? '';
      rows.push(...rowsOf(child, text, branch.replace(/^\s*\* ?/gm, '').trim()));
    } else if (!isIdentifier(child)) {
      rows.push(...rowsOf(child, text, inherited));
    }
    return undefined;
  });
  return rows;
}

function cell(text: string): string {
  return text.replace(/\|/g, '\\|');
}

/** Every node under `node`, depth first. */
function descendants(node: Node): Node[] {
  const found: Node[] = [];
  node.forEachChild((child) => {
    found.push(child, ...descendants(child));
    return undefined;
  });
  return found;
}

/**
 * The factory sections of one kind's module: each method of its `factory`, with the members of
 * its options type.
 */
function factorySections(
  source: Node,
  text: string,
  expand: (name: string) => string[],
): Section[] {
  return descendants(source)
    .filter((node) => isPropertyAssignment(node) && node.name.getText() === 'factory')
    .flatMap((node) => (isPropertyAssignment(node) ? [node.initializer] : []))
    .filter(isObjectLiteralExpression)
    .flatMap((factory) => factory.properties.filter(isPropertyAssignment))
    .flatMap((method) => {
      const make = method.initializer;
      const type = isArrowFunction(make) ? make.parameters[0]?.type : undefined;
      if (type === undefined || !isTypeReferenceNode(type)) return [];
      const options = type.typeName.getText();
      const doc = commentOf(method, text).replace(/\s+/g, ' ');
      return [
        {
          title: options,
          about: `\`EchoMqCache.${method.name.getText()}(options)\`: ${doc}`,
          from: expand(options),
          omit: ['kind'],
        },
      ];
    });
}

/**
 * The declarations whose members make up a type: an interface is itself; an alias is the
 * declarations its type names (type arguments first), where infra/ declares them.
 */
function membersFrom(name: string, find: (name: string) => Node | undefined): string[] {
  const node = find(name);
  if (node === undefined) return [];
  if (!isTypeAliasDeclaration(node)) return [name];
  const names: string[] = [];
  const visit = (type: Node): void => {
    if (isTypeReferenceNode(type)) {
      for (const argument of type.typeArguments ?? []) visit(argument);
      names.push(...membersFrom(type.typeName.getText(), find));
      return;
    }
    type.forEachChild((child) => {
      visit(child);
      return undefined;
    });
  };
  visit(node.type);
  return names;
}

/** The page's text for the sources as they are. */
export function propsReference(): string {
  const api = new API({ cwd: ROOT });
  try {
    const snapshot = api.updateSnapshot({ openProjects: ['tsconfig.json'] });
    const program = snapshot.getProjects()[0]?.program;
    if (program === undefined) throw new Error('tsconfig.json opened no project');
    // By name in any file of infra/, so moving a declaration between files needs no edit here.
    const sources = program
      .getSourceFileNames()
      .filter((file) => file.startsWith(`${ROOT}infra/`))
      .flatMap((file) => {
        const source = program.getSourceFile(file);
        return source === undefined ? [] : [source];
      });
    const declarations = (name: string) =>
      sources.flatMap((source) =>
        source.statements
          .filter(
            (statement) =>
              (isInterfaceDeclaration(statement) || isTypeAliasDeclaration(statement)) &&
              statement.name.getText() === name,
          )
          .map((node) => ({ node: node as Node, text: source.text })),
      );
    const declaration = (name: string): { node: Node; text: string } => {
      const found = declarations(name);
      const [only, ...others] = found;
      if (only === undefined || others.length > 0) {
        throw new Error(`infra/ declares ${found.length} types named ${name}, not one`);
      }
      return only;
    };
    const lines = [
      '# `echomq-lambda/cdk` props',
      '',
      'Every prop of the `EchoMq` construct and the `EchoMqCache` factories, with its default.',
      "Generated from the props' TSDoc by `scripts/props-reference.ts`: do not edit. The `settings`",
      'prop takes the `EMQ_*` tunables by their camel-case names ([configuration.md](configuration.md)).',
    ];
    const find = (name: string) => declarations(name)[0]?.node;
    const factories = CACHE_KINDS.flatMap((kind) => {
      const path = `${ROOT}infra/cache/${kind}/kind.ts`;
      const source = sources.find((file) => file.fileName === path);
      if (source === undefined) throw new Error(`no ${path}`);
      return factorySections(source, source.text, (name) => membersFrom(name, find));
    });
    for (const section of [...SECTIONS, ...factories, ...LAST_SECTIONS]) {
      const rows = section.from
        .flatMap((name) => {
          const { node, text } = declaration(name);
          return rowsOf(node, text);
        })
        .filter((row) => !section.omit?.includes(row.name));
      lines.push(
        '',
        `## ${section.title}`,
        '',
        section.about,
        '',
        '| prop | type | default | what |',
        '| --- | --- | --- | --- |',
      );
      for (const row of rows) {
        const fallback = row.required ? '(required)' : '(optional)';
        lines.push(
          `| \`${row.name}\` | \`${cell(row.type)}\` | ${cell(row.defaultText || fallback)} | ${cell(row.description)} |`,
        );
      }
    }
    return `${lines.join('\n')}\n`;
  } finally {
    api.close();
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(PAGE, propsReference());
  console.log(`props-reference: wrote ${PAGE}`);
}
