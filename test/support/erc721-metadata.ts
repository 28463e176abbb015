import Ajv from "ajv";

/** EIP-721's "ERC721 Metadata JSON Schema", as the EIP gives it. */
export const EIP721_METADATA_SCHEMA = {
  title: "Asset Metadata",
  type: "object",
  properties: {
    name: { type: "string", description: "Identifies the asset to which this NFT represents" },
    description: { type: "string", description: "Describes the asset to which this NFT represents" },
    image: {
      type: "string",
      description:
        "A URI pointing to a resource with mime type image/* representing the asset to which this NFT represents. Consider making any images at a width between 320 and 1080 pixels and aspect ratio between 1.91:1 and 4:5 inclusive.",
    },
  },
};

/** OpenSea's metadata standard on top of it: external_url, and attributes as {trait_type, value} with an optional display_type. */
export const OPENSEA_METADATA_SCHEMA = {
  type: "object",
  required: ["name", "description", "external_url", "attributes"],
  properties: {
    external_url: { type: "string", pattern: "^https?://" },
    attributes: {
      type: "array",
      items: {
        type: "object",
        required: ["trait_type", "value"],
        additionalProperties: false,
        properties: {
          trait_type: { type: "string", minLength: 1 },
          value: { type: ["string", "number"] },
          display_type: { enum: ["number", "boost_number", "boost_percentage", "date"] },
        },
      },
    },
  },
};

/** ERC-7572's contract-level metadata: what a marketplace reads at contractURI. */
export const ERC7572_METADATA_SCHEMA = {
  type: "object",
  required: ["name"],
  properties: {
    name: { type: "string", minLength: 1 },
    symbol: { type: "string" },
    description: { type: "string" },
    image: { type: "string" },
    external_link: { type: "string", pattern: "^https?://" },
  },
};

const ajv = new Ajv({ strict: false, allErrors: true });
const validators = {
  eip721: ajv.compile(EIP721_METADATA_SCHEMA),
  opensea: ajv.compile(OPENSEA_METADATA_SCHEMA),
  erc7572: ajv.compile(ERC7572_METADATA_SCHEMA),
};

/** What `json` breaks of the named schema; empty when it conforms. */
export function metadataProblems(schema: keyof typeof validators, json: unknown): string[] {
  const validate = validators[schema];
  return validate(json) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath || "(root)"} ${error.message ?? ""}`);
}
