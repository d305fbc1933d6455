// Validates an OpenAPI document with @apidevtools/swagger-parser (schema
// and semantic checks, $refs resolved). Usage: node validate.mjs FILE
import SwaggerParser from "@apidevtools/swagger-parser";

const file = process.argv[2];
if (!file) {
  console.error("usage: node validate.mjs openapi.json");
  process.exit(2);
}
try {
  const api = await SwaggerParser.validate(file);
  console.log(`swagger-parser: ${file} is valid (${api.info.title} ${api.info.version}, OpenAPI ${api.openapi})`);
} catch (err) {
  console.error(`swagger-parser: ${file} is invalid: ${err.message}`);
  process.exit(1);
}
