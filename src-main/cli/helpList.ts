/**
 * A help line's list of names, wrapped under the description column, from the registry that
 * owns them: `--help` never falls behind a new protocol.
 */
export function helpList(names: readonly string[], indent: number, width = 100): string {
  const pad = ' '.repeat(indent);
  const lines: string[] = [];
  let line = '';
  names.forEach((name, i) => {
    const item = i < names.length - 1 ? `${name},` : name;
    if (line && pad.length + line.length + 1 + item.length > width) {
      lines.push(line);
      line = item;
    } else line = line ? `${line} ${item}` : item;
  });
  if (line) lines.push(line);
  return lines.map((l) => pad + l).join('\n');
}
