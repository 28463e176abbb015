import { registerDecorator, type ValidationArguments, type ValidationOptions } from "class-validator";

import { callbackUrlProblem } from "./callback-target";
import { clientIdProblem } from "./client-id";
import { isCurrencyCode, isWalletAddress, isWebUrl } from "./field-rules";
import { characterCount, MAX_LONG_TEXT_LENGTH, MAX_TEXT_LENGTH } from "./text";
import { tokenUriProblem } from "./token-uri";
import { isUint64Input, uint64Problem } from "./uint64";

/** A class-validator rule from a test and a message. */
export function rule(
  name: string,
  test: (value: unknown) => boolean,
  message: (args: ValidationArguments) => string,
  options?: ValidationOptions,
): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name,
      target: target.constructor,
      propertyName: String(propertyName),
      options,
      validator: { validate: test, defaultMessage: message },
    });
}

/** A field problem found inside a value (an array's entry): the path it names and why. */
export interface FieldProblem {
  field: string;
  message: string;
}

/**
 * A rule that names the field in error more closely than its property (`attributes[3].traitType`):
 * the error's field is read from the rule's context (validate-item.ts).
 */
export function pathedRule(name: string, problem: (value: unknown) => FieldProblem | null, options?: ValidationOptions): PropertyDecorator {
  const fieldOf = (value: unknown) => problem(value)?.field;
  return rule(
    name,
    (value) => problem(value) === null,
    (args) => {
      const found = problem(args.value);
      return found ? `${found.field} ${found.message}` : `${args.property} is invalid`;
    },
    { ...options, context: { fieldOf } },
  );
}

export const IsUint64 = (options?: ValidationOptions) => rule("isUint64", isUint64Input, (args) => `${args.property} ${uint64Problem(args.value)}`, options);

export const IsCurrencyCode = (options?: ValidationOptions) =>
  rule("isCurrencyCode", isCurrencyCode, (args) => `${args.property} must be an ISO 4217 currency code in capitals, such as EUR`, options);

/** `allowBlank`: the field's default is the blank string, so sending "" is the same as leaving it out. */
export const IsWebUrl = (httpsOnly: boolean, allowBlank = false, options?: ValidationOptions) =>
  rule(
    httpsOnly ? "isHttpsUrl" : "isWebUrl",
    (value) => (allowBlank && value === "") || isWebUrl(value, httpsOnly),
    (args) => `${args.property} must be an ${httpsOnly ? "https" : "http or https"} URL of at most 255 characters${allowBlank ? ", or blank" : ""}`,
    options,
  );

/** An https URL callbacks can be sent to: no user information, no zone id, no IP literal delivery refuses. */
export const IsCallbackUrl = (options?: ValidationOptions) =>
  rule(
    "isCallbackUrl",
    (value) => isWebUrl(value, true) && callbackUrlProblem(value as string) === null,
    (args) =>
      isWebUrl(args.value, true)
        ? `${args.property} ${callbackUrlProblem(args.value as string)}`
        : `${args.property} must be an https URL of at most 255 characters`,
    options,
  );

/** A ticket's uri: https, ipfs:// or ar:// (token-uri.ts says why). A blank URI is the default and clears the ticket's URI. */
export const IsTokenUri = (options?: ValidationOptions) =>
  rule(
    "isTokenUri",
    (value) => value === "" || tokenUriProblem(value) === null,
    (args) => `${args.property} ${tokenUriProblem(args.value)}`,
    options,
  );

/**
 * An id the integrator chooses (eventId, ticketId, ticketeerId): one rule for every id field, so that
 * every id the API accepts has a page (client-id.ts). It checks the type and blankness too.
 */
export const IsClientId = (options?: ValidationOptions) =>
  rule(
    "isClientId",
    (value) => clientIdProblem(value) === null,
    (args) => `${args.property} ${clientIdProblem(args.value)}`,
    options,
  );

export const IsWalletAddress = (options?: ValidationOptions) =>
  rule(
    "isWalletAddress",
    isWalletAddress,
    (args) => `${args.property} must be a 0x-prefixed 20-byte address other than the zero address; mixed case must match its EIP-55 checksum`,
    options,
  );

/** A string field's length limit, in characters (code points: 𝄞 counts once), the same for every string field. */
export const MaxText = (options?: ValidationOptions) =>
  rule(
    "maxText",
    (value) => typeof value !== "string" || characterCount(value) <= MAX_TEXT_LENGTH,
    (args) => `${args.property} must be at most ${MAX_TEXT_LENGTH} characters (Unicode code points)`,
    options,
  );

/** Properties of each DTO prototype that hold long text: validateItem stores up to MAX_LONG_TEXT_LENGTH characters of them. */
const longTextFields = new WeakMap<object, Set<string>>();

/** The long text properties of `dto` and the DTOs it extends (MaxLongText), gathered once per DTO: validateItem asks per item. */
const longTextByDto = new WeakMap<object, ReadonlySet<string>>();

export function longTextFieldsOf(dto: { prototype: unknown }): ReadonlySet<string> {
  let fields = longTextByDto.get(dto);
  if (!fields) {
    const gathered = new Set<string>();
    for (let prototype = dto.prototype as object | null; prototype; prototype = Object.getPrototypeOf(prototype) as object | null) {
      for (const field of longTextFields.get(prototype) ?? []) gathered.add(field);
    }
    longTextByDto.set(dto, (fields = gathered));
  }
  return fields;
}

/** A long text field's limit (a description), in characters (code points), instead of MaxText's 255. */
export const MaxLongText = (options?: ValidationOptions): PropertyDecorator => {
  const limit = rule(
    "maxLongText",
    (value) => typeof value !== "string" || characterCount(value) <= MAX_LONG_TEXT_LENGTH,
    (args) => `${args.property} must be at most ${MAX_LONG_TEXT_LENGTH} characters (Unicode code points)`,
    options,
  );
  return (target, propertyName) => {
    const fields = longTextFields.get(target) ?? new Set<string>();
    fields.add(String(propertyName));
    longTextFields.set(target, fields);
    limit(target, propertyName);
  };
};
