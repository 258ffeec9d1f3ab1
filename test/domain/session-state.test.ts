import { describe, expect, it } from 'vitest';
import {
  ALLOWED_TRANSITIONS,
  InvalidTransitionError,
  TERMINAL_STATUSES,
  TRANSITION_ACTORS,
  assertTransition,
  canTransition,
  findTransition,
  isTerminal,
  renderTransitionTable,
  transitionsFrom,
  type TransitionActor,
} from '../../src/domain/session-state.js';
import { SESSION_STATUSES, type SessionStatus } from '../../src/domain/types.js';

/** The rules of docs/design.md "Sessions", written out independently of the module under test. */
const EXPECTED_ALLOWED: ReadonlyArray<readonly [SessionStatus, SessionStatus, TransitionActor]> = [
  ['pending', 'in_progress', 'end_user'],
  ['in_progress', 'approved', 'decision_engine'],
  ['in_progress', 'declined', 'decision_engine'],
  ['in_progress', 'in_review', 'decision_engine'],
  ['in_review', 'approved', 'reviewer'],
  ['in_review', 'declined', 'reviewer'],
  // A reviewer asks for a retake of one step (issue 16): the session takes input again.
  ['in_review', 'in_progress', 'reviewer'],
  ['pending', 'expired', 'expiry'],
  ['in_progress', 'expired', 'expiry'],
  // Ongoing monitoring (the engines issue): a new AML hit after a list import reopens an approval.
  ['approved', 'in_review', 'monitoring'],
];

const isExpectedAllowed = (from: SessionStatus, to: SessionStatus, actor: TransitionActor): boolean =>
  EXPECTED_ALLOWED.some(([f, t, a]) => f === from && t === to && a === actor);

/** Every (from, to, actor) triple of the product: 6 × 6 × 4 = 144 cases. */
const ALL_TRIPLES = SESSION_STATUSES.flatMap((from) =>
  SESSION_STATUSES.flatMap((to) => TRANSITION_ACTORS.map((actor) => ({ from, to, actor, allowed: isExpectedAllowed(from, to, actor) }))),
);

const reasonFor = (actor: TransitionActor): string | undefined =>
  actor === 'reviewer' ? 'Documents checked by hand.' : actor === 'monitoring' ? 'New AML hit after a list import.' : undefined;

describe('session state machine', () => {
  it('given the product of statuses and actors, then it has 180 triples of which 10 are allowed', () => {
    expect(ALL_TRIPLES).toHaveLength(180);
    expect(ALL_TRIPLES.filter((triple) => triple.allowed)).toHaveLength(10);
  });

  it('given the table as data, then it lists exactly the transitions of the design', () => {
    const table = ALLOWED_TRANSITIONS.map((t) => [t.from, t.to, t.actor]);
    expect(table).toHaveLength(EXPECTED_ALLOWED.length);
    expect(new Set(table.map((row) => row.join('>')))).toEqual(new Set(EXPECTED_ALLOWED.map((row) => row.join('>'))));
  });

  describe.each(ALL_TRIPLES)('given a session in $from, when $actor asks for $to', ({ from, to, actor, allowed }) => {
    it(`then canTransition is ${allowed}`, () => {
      expect(canTransition(from, to, actor)).toBe(allowed);
    });

    if (allowed) {
      it('then assertTransition accepts it and returns the table row', () => {
        const row = assertTransition(from, to, actor, reasonFor(actor));
        expect(row).toMatchObject({ from, to, actor });
      });
      return;
    }

    it('then assertTransition throws InvalidTransitionError naming both statuses', () => {
      let caught: unknown;
      try {
        assertTransition(from, to, actor, 'some reason');
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(InvalidTransitionError);
      const error = caught as InvalidTransitionError;
      expect(error.code).toBe('invalid_transition');
      expect(error.rule).toBe('transition_not_allowed');
      expect(error.from).toBe(from);
      expect(error.to).toBe(to);
      expect(error.actor).toBe(actor);
      expect(error.message).toContain(`from ${from} to ${to} by ${actor}`);
    });
  });

  describe('reviewer reason rule', () => {
    const reviewerMoves: ReadonlyArray<SessionStatus> = ['approved', 'declined', 'in_progress'];

    describe.each(reviewerMoves)('given a session in in_review, when a reviewer moves it to %s', (to) => {
      it.each([
        ['no reason', undefined],
        ['a null reason', null],
        ['an empty reason', ''],
        ['a blank reason', '   \n\t '],
      ])('with %s, then it is refused as reason_required', (_label, reason) => {
        expect(() => assertTransition('in_review', to, 'reviewer', reason)).toThrowError(InvalidTransitionError);
        try {
          assertTransition('in_review', to, 'reviewer', reason);
        } catch (error) {
          const refusal = error as InvalidTransitionError;
          expect(refusal.rule).toBe('reason_required');
          expect(refusal.code).toBe('invalid_transition');
          expect(refusal.message).toMatch(/non-empty reason/);
        }
      });

      it('with a real reason, then it is accepted', () => {
        expect(assertTransition('in_review', to, 'reviewer', 'Passport verified by phone call.')).toMatchObject({
          reasonRequired: true,
        });
      });
    });

    it('given a non-reviewer transition, when no reason is given, then it is accepted', () => {
      expect(() => assertTransition('pending', 'in_progress', 'end_user')).not.toThrow();
      expect(() => assertTransition('in_progress', 'approved', 'decision_engine', '')).not.toThrow();
    });

    it('given the table, then only reviewer and monitoring transitions require a reason', () => {
      for (const transition of ALLOWED_TRANSITIONS) {
        expect(transition.reasonRequired).toBe(transition.actor === 'reviewer' || transition.actor === 'monitoring');
      }
    });
  });

  describe('must go through in_progress', () => {
    it.each(['approved', 'declined', 'in_review'] as const)(
      'given a pending session, when the decision engine asks for %s, then it is refused',
      (to) => {
        expect(canTransition('pending', to, 'decision_engine')).toBe(false);
        expect(() => assertTransition('pending', to, 'decision_engine')).toThrowError(
          /can go to: in_progress \(by end_user\), expired \(by expiry\)/,
        );
      },
    );
  });

  describe('terminal statuses', () => {
    it('given the table, then declined and expired are terminal and nothing else (monitoring can reopen approved)', () => {
      expect([...TERMINAL_STATUSES].sort()).toEqual(['declined', 'expired']);
    });

    it.each(SESSION_STATUSES)('given %s, then isTerminal agrees with the outgoing transitions', (status) => {
      expect(isTerminal(status)).toBe(transitionsFrom(status).length === 0);
    });

    it('given in_review, then it is not terminal because a reviewer still decides it', () => {
      expect(isTerminal('in_review')).toBe(false);
    });

    it('given a terminal status, when anything is asked, then the message says it is terminal', () => {
      expect(() => assertTransition('declined', 'approved', 'reviewer', 'x')).toThrowError(/declined is terminal/);
    });
  });

  describe('helpers', () => {
    it('given in_progress and the decision engine, then transitionsFrom lists its three verdicts', () => {
      expect(transitionsFrom('in_progress', 'decision_engine').map((t) => t.to)).toEqual(['approved', 'declined', 'in_review']);
    });

    it('given a transition outside the table, then findTransition returns undefined', () => {
      expect(findTransition('expired', 'pending', 'expiry')).toBeUndefined();
    });

    it('given the table, when rendered, then every row appears in the Markdown', () => {
      const markdown = renderTransitionTable();
      expect(markdown.split('\n').filter((line) => line.startsWith('| `'))).toHaveLength(ALLOWED_TRANSITIONS.length);
      expect(markdown).toContain('| `in_review` | `approved` | `reviewer` | yes |');
    });
  });
});
