/**
 * The team's code skill (AIGNE's test-agents/sandbox.js evaluates JavaScript; this one runs no code
 * it is given): it tidies the section's title and counts the words of its description, the same way
 * every time. As a default-export function it becomes a FunctionAgent named after the file
 * ('sandbox'); the properties below are its description and schemas.
 */
export default function sandbox({ title, description = '' }) {
  const tidy = title
    .trim()
    .split(/\s+/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1).toLowerCase())
    .join(' ');
  const words = description.trim() === '' ? 0 : description.trim().split(/\s+/).length;
  return { title: tidy, word_count: words };
}

sandbox.description = "Tidies a section's title (title case, single spaces) and counts the words of its description.";

sandbox.input_schema = {
  type: 'object',
  properties: {
    title: { type: 'string', description: 'The section title' },
    description: { type: 'string', description: 'The section description' },
  },
  required: ['title'],
};

sandbox.output_schema = {
  type: 'object',
  properties: {
    title: { type: 'string' },
    word_count: { type: 'integer', minimum: 0 },
  },
  required: ['title', 'word_count'],
};
