/**
 * Who may read the schema through introspection (audit N5, OWASP API4): only a machine with an
 * API key, as GraphiQL and the codegen tools are. An end user's session link (and a console
 * sign-in) runs the operations its page needs and has no use for the map of every other one.
 */
import { mayIntrospect } from '../auth/authorization.js';
import { BREAK, visit, type DocumentNode } from 'graphql';
import type { Principal } from '../auth/context.js';
import { ApiError } from '../shared/errors.js';

/** The meta-fields that read the schema; `__typename` reads only an object's own type and stays open. */
const INTROSPECTION_FIELDS = new Set(['__schema', '__type']);

/** Whether a document selects `__schema` or `__type` anywhere, fragments included. */
export function selectsIntrospection(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Field(node) {
      if (!INTROSPECTION_FIELDS.has(node.name.value)) return undefined;
      found = true;
      return BREAK;
    },
  });
  return found;
}

/** Refuses an introspection query from anything but an API key with INTROSPECTION_NOT_ALLOWED, before it runs. */
export function assertIntrospectionAllowed(document: DocumentNode, principal: Principal | null | undefined): void {
  if (mayIntrospect(principal) || !selectsIntrospection(document)) return;
  throw new ApiError(
    'introspection_not_allowed',
    'Introspection (__schema, __type) is answered for API keys only: send x-api-key, as GraphiQL and code generators do.',
  );
}
