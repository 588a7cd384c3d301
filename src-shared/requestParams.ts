import type { RoleWireShape } from './runs';

/**
 * One line per kind of request a run sent, as its manifest recorded them from the wire
 * (`requestParams`): role and step, then the body's parameters, `seed` named even when absent,
 * since "no seed" is a setting a reference may require. `runs show` and the Runs view print these.
 */
export function describeWireShape(shape: RoleWireShape): string {
  const { seed, ...rest } = shape.params;
  const params = Object.entries(rest).map(([key, value]) => `${key} ${JSON.stringify(value)}`);
  params.push(seed === undefined ? 'no seed' : `seed ${JSON.stringify(seed)}`);
  const label = shape.step === shape.role ? shape.role : `${shape.role}/${shape.step}`;
  return `${label}: ${params.join(', ')}`;
}
