import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';

/** One Kubernetes object as written in a manifest, with the file it came from. */
export interface ManifestObject {
  readonly file: string;
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly name: string; readonly labels?: Readonly<Record<string, string>> };
  readonly [field: string]: unknown;
}

export interface Kustomization {
  readonly resources: readonly string[];
  readonly images?: readonly { readonly name: string; readonly newName?: string; readonly newTag?: string }[];
}

/**
 * The objects `kubectl apply -k <folder>` would send, for the features the base uses: `resources`
 * (files of one or more YAML documents) and `images` (a container's image name given a new name
 * or tag). Anything else in the kustomization is refused, so a feature this reader ignores cannot
 * slip in unvalidated.
 */
export function loadKustomization(folder: string): { kustomization: Kustomization; objects: ManifestObject[] } {
  const kustomization = parseYamlFile(join(folder, 'kustomization.yaml'))[0] as Kustomization & Record<string, unknown>;
  const known = new Set(['apiVersion', 'kind', 'resources', 'images']);
  const unknown = Object.keys(kustomization).filter((key) => !known.has(key));
  if (unknown.length > 0) throw new Error(`kustomization.yaml: ${unknown.join(', ')} not understood by this reader`);
  const objects = kustomization.resources.flatMap((file) =>
    parseYamlFile(join(folder, file)).map((document) => ({ ...(document as object), file }) as ManifestObject),
  );
  for (const object of objects) {
    for (const container of containersOf(object)) {
      const [name, tag] = splitImage(container.image);
      const rule = kustomization.images?.find((image) => image.name === name);
      if (rule !== undefined) container.image = `${rule.newName ?? name}:${rule.newTag ?? tag ?? 'latest'}`;
    }
  }
  return { kustomization, objects };
}

function parseYamlFile(path: string): unknown[] {
  return parseAllDocuments(readFileSync(path, 'utf8')).map((document) => {
    if (document.errors.length > 0) throw new Error(`${path}: ${document.errors.map((error) => error.message).join('; ')}`);
    return document.toJS() as unknown;
  });
}

export interface ContainerSpec {
  name: string;
  image: string;
  args?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: { name: string; value?: string }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  livenessProbe?: ProbeSpec;
  readinessProbe?: ProbeSpec;
  startupProbe?: ProbeSpec;
  volumeMounts?: { name: string; mountPath: string }[];
  resources?: { requests?: { cpu?: string; memory?: string }; limits?: { cpu?: string; memory?: string } };
}

export interface ProbeSpec {
  httpGet?: { path: string; port: number | string };
}

export interface PodTemplate {
  metadata: { labels: Record<string, string> };
  spec: { containers: ContainerSpec[]; volumes?: { name: string; configMap?: { name: string } }[]; terminationGracePeriodSeconds?: number };
}

/** A workload's pod template (Deployments, the only workloads here), or undefined. */
export function podTemplateOf(object: ManifestObject): PodTemplate | undefined {
  return object.kind === 'Deployment' ? (object['spec'] as { template: PodTemplate }).template : undefined;
}

export function containersOf(object: ManifestObject): ContainerSpec[] {
  return podTemplateOf(object)?.spec.containers ?? [];
}

/** `registry/name:tag` → [registry/name, tag]; a port in the registry is not a tag. */
export function splitImage(image: string): [string, string | undefined] {
  const slash = image.lastIndexOf('/');
  const colon = image.lastIndexOf(':');
  return colon > slash ? [image.slice(0, colon), image.slice(colon + 1)] : [image, undefined];
}

/** A probe's port as a number: a container port's name resolves to its number. */
export function probePort(container: ContainerSpec, probe: ProbeSpec | undefined): number | undefined {
  const port = probe?.httpGet?.port;
  if (typeof port === 'number') return port;
  return container.ports?.find((candidate) => candidate.name === port)?.containerPort;
}
