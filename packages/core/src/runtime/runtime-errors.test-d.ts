/**
 * `isInstance`'s promise: called on any Agate error class, it narrows to that class (a
 * subclass's own fields included), so code that tells errors apart needs no cast.
 */
import {
  AgateError,
  ApprovalKeyError,
  MissingApprovalKeyError,
  ModelCallError,
  StaleSessionError,
} from '@agate/core';
import { describe, expectTypeOf, it } from 'vitest';

declare const error: unknown;

describe('isInstance', () => {
  it('narrows to the class it is called on', () => {
    if (StaleSessionError.isInstance(error)) {
      expectTypeOf(error).toEqualTypeOf<StaleSessionError>();
      expectTypeOf(error.actualRevision).toBeNumber();
    }
    if (ModelCallError.isInstance(error)) {
      expectTypeOf(error.statusCode).toEqualTypeOf<number | undefined>();
    }
    if (MissingApprovalKeyError.isInstance(error)) {
      expectTypeOf(error.missing).toEqualTypeOf<'approvalPublicKey' | 'approvalKey'>();
    }
    if (ApprovalKeyError.isInstance(error)) {
      expectTypeOf(error).toEqualTypeOf<ApprovalKeyError>();
      // @ts-expect-error: a parent class does not have its subclass's fields
      error.missing;
    }
    if (AgateError.isInstance(error)) {
      expectTypeOf(error.tick).toEqualTypeOf<number | undefined>();
      // @ts-expect-error: an AgateError is not known to be stale
      error.actualRevision;
    }
  });

  it('is a static of every Agate error class, with no code of its own', () => {
    expectTypeOf(StaleSessionError.isInstance).toBeFunction();
    expectTypeOf(StaleSessionError.isInstance).parameter(0).toBeUnknown();
  });
});
