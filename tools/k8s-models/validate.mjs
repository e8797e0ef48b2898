// Validates custom resources with the published models' own validators.
// stdin: a JSON array of objects; stdout: a JSON array of error lists, one per object.
import * as cnpg from "@kubernetes-models/cloudnative-pg/postgresql.cnpg.io/v1";
import * as monitoring from "@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1";

const MODELS = {
  "postgresql.cnpg.io/v1": cnpg,
  "monitoring.coreos.com/v1": monitoring,
};

function errorsOf(obj) {
  const model = MODELS[obj.apiVersion]?.[obj.kind];
  if (!model) return [`no schema for ${obj.apiVersion} ${obj.kind}`];
  try {
    new model(obj).validate();
    return [];
  } catch (e) {
    return [String(e.message)];
  }
}

let input = "";
process.stdin.setEncoding("utf8");
for await (const chunk of process.stdin) input += chunk;
process.stdout.write(JSON.stringify(JSON.parse(input).map(errorsOf)));
