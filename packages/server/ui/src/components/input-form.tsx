import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { type FormValues, formFields, formValue } from '../model/schema-form.js';

/** Props of {@link InputForm}. */
export interface InputFormProps {
  /** The root agent's `inputSchema`, as JSON Schema. */
  schema: Record<string, unknown>;
  /** Why sending is not possible now, if it is not. */
  sendBlocked: string | undefined;
  onSend: (input: Record<string, unknown>) => void;
  /** Opens the form and focuses its first field whenever it grows (0: leave it as the user left it). */
  openRequest?: number;
}

/** A form generated from the root agent's inputSchema; it starts a run with the structured `input`. */
export function InputForm({ schema, sendBlocked, onSend, openRequest = 0 }: InputFormProps) {
  const fields = useMemo(() => formFields(schema), [schema]);
  const [values, setValues] = useState<FormValues>({});
  const [problem, setProblem] = useState<string>();
  const set = (name: string, value: string | boolean) => setValues((v) => ({ ...v, [name]: value }));
  const details = useRef<HTMLDetailsElement>(null);
  useEffect(() => {
    const element = details.current;
    if (openRequest === 0 || !element) return;
    element.open = true;
    element.querySelector<HTMLElement>('input, select, textarea')?.focus();
  }, [openRequest]);

  return (
    <details class="input-form" ref={details}>
      <summary>Structured input</summary>
      <form
        aria-label="Structured input"
        onSubmit={(e) => {
          e.preventDefault();
          const result = formValue(fields, values);
          if (!result.ok) return setProblem(result.message);
          setProblem(undefined);
          onSend(result.value);
        }}
      >
        {fields.map((field) => {
          const id = `input-field-${field.name}`;
          const value = values[field.name] ?? field.initial;
          return (
            <div key={field.name} class={`input-field ${field.control}`}>
              <label for={id}>
                {field.label}
                {field.required && <span aria-hidden="true"> *</span>}
              </label>
              {field.control === 'checkbox' ? (
                <input
                  id={id}
                  type="checkbox"
                  checked={value === true}
                  onChange={(e) => set(field.name, e.currentTarget.checked)}
                />
              ) : field.control === 'select' ? (
                <select id={id} value={String(value)} onChange={(e) => set(field.name, e.currentTarget.value)}>
                  {field.options!.map((option) => (
                    <option key={option} value={option}>
                      {option}
                    </option>
                  ))}
                </select>
              ) : field.control === 'list' || field.control === 'json' ? (
                <textarea
                  id={id}
                  rows={2}
                  value={String(value)}
                  placeholder={field.control === 'list' ? 'one item per line' : 'JSON'}
                  onInput={(e) => set(field.name, e.currentTarget.value)}
                />
              ) : field.control === 'text' ? (
                <input
                  id={id}
                  type="text"
                  value={String(value)}
                  onInput={(e) => set(field.name, e.currentTarget.value)}
                />
              ) : (
                <input
                  id={id}
                  type="number"
                  step={field.control === 'integer' ? 1 : 'any'}
                  value={String(value)}
                  onInput={(e) => set(field.name, e.currentTarget.value)}
                />
              )}
              {field.description && <small class="muted">{field.description}</small>}
            </div>
          );
        })}
        {problem && (
          <p class="error-text" role="alert">
            {problem}
          </p>
        )}
        <button type="submit" class="primary" disabled={sendBlocked !== undefined} title={sendBlocked}>
          Run with input
        </button>
      </form>
    </details>
  );
}
