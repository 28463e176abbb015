import { getMetadataStorage, type ValidationArguments, ValidationTypes, type ValidatorConstraintInterface } from "class-validator";

/**
 * A DTO's rules, read once from class-validator's metadata, as a plain check of a flat instance:
 * true when every rule passes. class-validator looks the metadata up, filters and groups it and builds
 * error objects for every item it validates, which for the 5000 items of one /stream request costs
 * more than the rules themselves. The check calls the very same validators, so it passes exactly what
 * class-validator passes; any item it does not pass is validated again by class-validator, which
 * reports its error as always (validate-item.ts). Null when the DTO uses a feature the check does
 * not follow (groups, `each`, `validateIf`, nested or async rules): class-validator alone then.
 */
export type CompiledCheck<T> = {
  /** The declared properties: what a whitelisting validation keeps. */
  properties: ReadonlySet<string>;
  passes(instance: T): boolean;
};

interface Rule {
  validator: ValidatorConstraintInterface;
  constraints: unknown[];
}

interface PropertyRules {
  property: string;
  /** IsOptional and the like: when one is false, the property's rules are skipped. */
  conditions: ((object: object, value: unknown) => boolean)[];
  rules: Rule[];
}

const compiled = new WeakMap<object, CompiledCheck<object> | null>();

export function compiledCheck<T extends object>(dto: new (...args: never[]) => T): CompiledCheck<T> | null {
  if (!compiled.has(dto)) compiled.set(dto, compile(dto));
  return compiled.get(dto) as CompiledCheck<T> | null;
}

function compile(dto: new (...args: never[]) => object): CompiledCheck<object> | null {
  const storage = getMetadataStorage();
  // The arguments validateSync gives it without groups: no schema, always false, strictGroups false.
  const metadatas = storage.getTargetValidationMetadatas(dto, undefined as unknown as string, false, false, undefined);
  if (metadatas.length === 0) return null;
  const byProperty = new Map<string, PropertyRules>();
  for (const metadata of metadatas) {
    if (metadata.each || metadata.validateIf || metadata.always || (metadata.groups && metadata.groups.length > 0)) return null;
    let entry = byProperty.get(metadata.propertyName);
    if (!entry) byProperty.set(metadata.propertyName, (entry = { property: metadata.propertyName, conditions: [], rules: [] }));
    if (metadata.type === ValidationTypes.CONDITIONAL_VALIDATION) {
      entry.conditions.push(metadata.constraints[0] as (object: object, value: unknown) => boolean);
    } else if (metadata.type === ValidationTypes.IS_DEFINED || metadata.type === ValidationTypes.CUSTOM_VALIDATION) {
      for (const constraint of storage.getTargetValidatorConstraints(metadata.constraintCls)) {
        if (constraint.async) return null;
        entry.rules.push({ validator: constraint.instance, constraints: metadata.constraints });
      }
    } else if (metadata.type !== ValidationTypes.WHITELIST) {
      return null;
    }
  }
  const properties = [...byProperty.values()];
  const targetName = dto.name;
  return {
    properties: new Set(byProperty.keys()),
    passes(instance) {
      for (const { property, conditions, rules } of properties) {
        const value = (instance as Record<string, unknown>)[property];
        if (conditions.some((condition) => !condition(instance, value))) continue;
        for (const { validator, constraints } of rules) {
          const args: ValidationArguments = { targetName, property, object: instance, value, constraints };
          const valid = validator.validate(value, args);
          // A promise is class-validator's to follow (it ignores async rules in validateSync): not passed here.
          if (valid !== true && (!valid || typeof (valid as { then?: unknown }).then === "function")) return false;
        }
      }
      return true;
    },
  };
}
