/**
 * The faces' functions, one per row of infra/faces/registry.ts the deployment has (the HTTP
 * function behind the API, the SQS function fed by the source queue): each from its bundle, with
 * its row's description, sizing and environment, published as a version behind the alias `live`,
 * which the routes and the event source invoke: a release moves the alias, at once or gradually
 * (rollout.ts). The row wires what invokes it.
 */
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { Construct } from 'constructs';
import { SETTINGS } from '../../src/settings/settings-table.js';
import type { CacheTarget } from '../cache/cache.js';
import type { ResolvedDeployment } from '../deployment/deployment.js';
import { emqEnvironment } from '../deployment/environment.js';
import {
  FACES,
  type FaceChoice,
  type FaceFunction,
  type FaceName,
  type FaceRow,
  type FaceWiring,
} from '../faces/registry.js';
import { BundledFunction } from './bundled-function.js';
import type { EchoMqFunctionProps } from './echomq-props.js';
import type { EchoMqNetwork } from './network.js';

export interface EchoMqFunctionsProps {
  readonly deployment: ResolvedDeployment;
  readonly network: EchoMqNetwork;
  readonly cache: CacheTarget;
  /** Which faces get a function. */
  readonly faces: FaceChoice;
  /** What the rows wire their functions to. */
  readonly wiring: FaceWiring;
  /** Merged over every face's function's defaults. */
  readonly functionProps?: EchoMqFunctionProps | undefined;
  /** The name their metrics carry (EMQ_DEPLOYMENT). */
  readonly deploymentName: string;
}

/** The alias every caller of a face invokes. */
export const LIVE_ALIAS = 'live';

/** One face's function, its alias and what invokes it where the row wires it. */
export interface EchoMqFaceFunction extends FaceFunction {
  readonly eventSource: lambda.EventSourceMapping | undefined;
}

export class EchoMqFunctions extends Construct {
  /** The functions of the faces the deployment has, by face. */
  readonly faces: Partial<Record<FaceName, EchoMqFaceFunction>> = {};

  constructor(scope: Construct, id: string, props: EchoMqFunctionsProps) {
    super(scope, id);
    const { deployment, network, cache, wiring } = props;
    const named = { [SETTINGS.deployment.env]: props.deploymentName };
    for (const face of FACES) {
      if (!props.faces[face.name]) continue;
      const { timeoutSeconds, memoryMiB } = face.sizing(deployment);
      const fn = new BundledFunction(this, face.id, {
        deployment,
        network,
        cache,
        overrides: props.functionProps,
        bundle: face.name,
        description: face.description,
        timeoutSeconds,
        memoryMiB,
        environment: {
          ...emqEnvironment(deployment.settings, face.name),
          ...named,
          ...('environment' in face ? face.environment(wiring) : {}),
        },
      }).function;
      const live = new lambda.Alias(this, `${face.id}Live`, {
        aliasName: LIVE_ALIAS,
        version: fn.currentVersion,
      });
      const eventSource = 'wire' in face ? face.wire(this, { fn, live }, wiring) : undefined;
      this.faces[face.name] = { fn, live, eventSource };
    }
  }

  /** Every face's function made, in the registry's order. */
  get made(): readonly (EchoMqFaceFunction & { readonly row: FaceRow })[] {
    return FACES.flatMap((face) => {
      const made = this.faces[face.name];
      return made === undefined ? [] : [{ ...made, row: face }];
    });
  }
}
