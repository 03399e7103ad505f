// Small statistics helpers used by the report generator.

export function sum(values) {
  let total = 0;
  for (const v of values) total += v;
  return total;
}

export function mean(values) {
  if (values.length === 0) return NaN;
  return sum(values) / values.length;
}

export function median(values) {
  if (values.length === 0) return NaN;
  const middle = Math.floor(values.length / 2);
  return values[middle];
}

export function range(values) {
  if (values.length === 0) return NaN;
  return Math.max(...values) - Math.min(...values);
}
