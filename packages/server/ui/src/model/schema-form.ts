/**
 * The form of an agent's `inputSchema` (JSON Schema of an object): one field per property. Strings,
 * numbers, integers, booleans, enums and arrays of strings get their own controls; any other
 * property is typed as JSON.
 */
export interface FormField {
  name: string;
  label: string;
  description?: string;
  required: boolean;
  control: 'text' | 'number' | 'integer' | 'checkbox' | 'select' | 'list' | 'json';
  /** The choices of an enum. */
  options?: string[];
  /** The schema's default, as the control shows it. */
  initial: string | boolean;
}

/** What the user typed: text per field, `true`/`false` for checkboxes. */
export type FormValues = Record<string, string | boolean>;

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The fields of an object schema; none when the schema has no properties. */
export function formFields(schema: Json): FormField[] {
  const properties = isObject(schema.properties) ? schema.properties : {};
  const required = Array.isArray(schema.required) ? schema.required.filter((r) => typeof r === 'string') : [];
  return Object.entries(properties).map(([name, raw]) => {
    const property = isObject(raw) ? raw : {};
    const control = controlOf(property);
    const field: FormField = {
      name,
      label: typeof property.title === 'string' ? property.title : name,
      required: required.includes(name),
      control,
      initial: initialOf(property, control),
    };
    if (typeof property.description === 'string') field.description = property.description;
    if (control === 'select') field.options = (property.enum as unknown[]).map(String);
    return field;
  });
}

function controlOf(property: Json): FormField['control'] {
  if (Array.isArray(property.enum) && property.enum.every((v) => typeof v === 'string')) return 'select';
  switch (property.type) {
    case 'string':
      return 'text';
    case 'number':
      return 'number';
    case 'integer':
      return 'integer';
    case 'boolean':
      return 'checkbox';
    case 'array':
      return isObject(property.items) && property.items.type === 'string' ? 'list' : 'json';
    default:
      return 'json';
  }
}

function initialOf(property: Json, control: FormField['control']): string | boolean {
  const given = property.default;
  if (control === 'checkbox') return given === true;
  if (given === undefined) return control === 'select' ? String((property.enum as unknown[])[0] ?? '') : '';
  if (control === 'list' && Array.isArray(given)) return given.join('\n');
  if (control === 'json') return JSON.stringify(given);
  return String(given);
}

/**
 * The input object of the form's values, or the first problem: a required field left empty, a
 * number that is not one, JSON that does not parse. Empty optional fields are left out; a list
 * field holds one string per line.
 */
export function formValue(
  fields: readonly FormField[],
  values: FormValues,
): { ok: true; value: Record<string, unknown> } | { ok: false; message: string } {
  const value: Record<string, unknown> = {};
  for (const field of fields) {
    const raw = values[field.name] ?? field.initial;
    if (field.control === 'checkbox') {
      value[field.name] = raw === true;
      continue;
    }
    const text = String(raw).trim();
    if (text === '') {
      if (field.required) return { ok: false, message: `${field.label} is required.` };
      continue;
    }
    switch (field.control) {
      case 'number':
      case 'integer': {
        const number = Number(text);
        if (!Number.isFinite(number) || (field.control === 'integer' && !Number.isInteger(number)))
          return {
            ok: false,
            message: `${field.label} must be ${field.control === 'integer' ? 'a whole number' : 'a number'}; got "${text}".`,
          };
        value[field.name] = number;
        break;
      }
      case 'list':
        value[field.name] = text
          .split('\n')
          .map((line) => line.trim())
          .filter((line) => line !== '');
        break;
      case 'json':
        try {
          value[field.name] = JSON.parse(text) as unknown;
        } catch {
          return { ok: false, message: `${field.label} must be JSON, e.g. {"key": "value"}; got "${text}".` };
        }
        break;
      default:
        value[field.name] = text;
    }
  }
  return { ok: true, value };
}
