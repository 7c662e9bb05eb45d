// CodeMirror 6 for viewing and editing a config, highlighted by its type, and @codemirror/merge
// for the side-by-side diff.
import { useEffect, useRef } from 'react';
import { EditorState, type Extension } from '@codemirror/state';
import { EditorView, lineNumbers, highlightActiveLine, keymap } from '@codemirror/view';
import { defaultKeymap, history, historyKeymap } from '@codemirror/commands';
import { StreamLanguage, syntaxHighlighting, defaultHighlightStyle } from '@codemirror/language';
import { yaml } from '@codemirror/lang-yaml';
import { json } from '@codemirror/lang-json';
import { xml } from '@codemirror/lang-xml';
import { properties } from '@codemirror/legacy-modes/mode/properties';
import { MergeView } from '@codemirror/merge';

function language(type: string): Extension {
  switch (type) {
    case 'yaml':
      return yaml();
    case 'json':
      return json();
    case 'xml':
    case 'html':
      return xml();
    case 'properties':
      return StreamLanguage.define(properties);
    default:
      return [];
  }
}

function base(type: string, editable: boolean): Extension[] {
  return [
    lineNumbers(),
    syntaxHighlighting(defaultHighlightStyle, { fallback: true }),
    language(type),
    EditorView.editable.of(editable),
    EditorState.readOnly.of(!editable),
    EditorView.lineWrapping,
    EditorView.theme({ '&': { fontSize: '13px', border: '1px solid #dee2e6' }, '.cm-scroller': { maxHeight: '55vh' } }),
  ];
}

/** An editor (or a viewer when onChange is absent) of {@code value}. */
export function CodeEditor(props: { value: string; type: string; onChange?: (v: string) => void; testId?: string }) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const onChange = useRef(props.onChange);
  onChange.current = props.onChange;
  const editable = props.onChange !== undefined;

  useEffect(() => {
    const v = new EditorView({
      parent: host.current!,
      state: EditorState.create({
        doc: props.value,
        extensions: [
          ...base(props.type, editable),
          ...(editable ? [history(), highlightActiveLine(), keymap.of([...defaultKeymap, ...historyKeymap])] : []),
          EditorView.updateListener.of((u) => {
            if (u.docChanged) onChange.current?.(u.state.doc.toString());
          }),
        ],
      }),
    });
    view.current = v;
    return () => v.destroy();
    // the editor is rebuilt when the type or mode changes; value changes are applied below
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [props.type, editable]);

  useEffect(() => {
    const v = view.current;
    if (v && v.state.doc.toString() !== props.value) {
      v.dispatch({ changes: { from: 0, to: v.state.doc.length, insert: props.value } });
    }
  }, [props.value]);

  return <div ref={host} data-testid={props.testId} className="code" />;
}

/** {@code a} (left) against {@code b} (right), changes marked, both read-only. */
export function DiffView(props: { a: string; b: string; type: string; testId?: string }) {
  const host = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const m = new MergeView({
      parent: host.current!,
      a: { doc: props.a, extensions: base(props.type, false) },
      b: { doc: props.b, extensions: base(props.type, false) },
      collapseUnchanged: { margin: 3, minSize: 6 },
    });
    return () => m.destroy();
  }, [props.a, props.b, props.type]);
  return <div ref={host} data-testid={props.testId} className="diff" />;
}
