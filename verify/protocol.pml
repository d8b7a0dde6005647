/*
 * The confirmation protocol's processes and properties (the moves themselves are generated
 * from verify/transitions.tsv in front of this file: verify/generate.py).
 *
 * One card (index 0; with EDIT its edited successor is card 1), its continuation, one choice.
 * Confirmers 1..NCONF are the owner's requests; with FOREIGN, one more is another user's.
 * Faults, at most MAXF of them in a run: a claim's reply lost, a COMMIT's reply lost, and
 * with FAILOVER a Redis failover that forgets the card's claim (or its settlement).
 *
 * Properties (assertions unless named):
 *   P1 at most one durable execution per card lineage (card 0 and its edit together)
 *   P2 a claim executes at most once: runs <= winning claims (never a re-run)
 *   P3 a success outcome exists only with its succeeded receipt
 *   P4 a continuation generates only after a succeeded receipt, and settles one reply
 *   P5 (LTL, weak fairness) every card eventually leaves running; every unknown is resolved
 *   P6 a 503 answer leaves the card confirmable: that attempt holds no claim, ran nothing
 *   P7 only the owner's request ever holds the claim
 *   P8 every settled answer about a card is the same, and matches its receipt
 *   P9 a choice gives one card; an undo compensates only an action that executed
 */

#ifndef NCONF
#define NCONF 3
#endif
#ifndef FOREIGN
#define FOREIGN 1
#endif
#ifndef MAXF
#define MAXF 2
#endif
#ifndef NGEN
#define NGEN 2
#endif
#ifndef EDIT
#define EDIT 1
#endif
#ifndef CHOICE
#define CHOICE 1
#endif
#ifndef UNDO
#define UNDO 1
#endif
#ifndef FAILOVER
#define FAILOVER 1
#endif

#define NW (NCONF + FOREIGN)
#define is_owner(w) ((w) >= 1 && (w) <= NCONF)

#define K_NONE 0
#define K_SUCCEEDED 1
#define K_FAILED 2
#define K_UNKNOWN 3
#define R_NONE 0
#define R_SUCCEEDED 1
#define R_VOIDED 2

/* The store (Redis): one record per card, continuation and choice. */
byte c_st[2]; byte c_holder[2]; byte c_kind[2]; bool c_lease[2];
byte k_st[1]; byte k_holder[1]; byte k_kind[1]; bool k_lease[1];
byte h_st[1]; byte h_holder[1]; byte h_kind[1]; bool h_lease[1];

/* The database: the receipt slot (unique action id) and a COMMIT in flight (its holder). */
byte receipt[2];
byte inflight[2];

/* Ghosts: what the properties count. */
byte changes;          /* durable executions of the lineage */
byte executed[2];      /* per card */
byte claims[2];        /* winning claims per card */
byte runs[2];          /* executions started per card */
byte answered[2];      /* the first settled answer per card */
byte replies;          /* continuation replies settled */
byte picked;           /* choice picks that returned a card */
bool deadline_passed[NW + 1];
bool gave_503[NW + 1];
bool edited_shown;     /* the edit answered: its new token is the client's */
byte faults;

/* @transitions@ (verify/generate.py puts the moves of verify/transitions.tsv here) */

inline success_has_receipt(c) {
  assert(!(c_st[c] == CARD_SETTLED && c_kind[c] == K_SUCCEEDED) || receipt[c] == R_SUCCEEDED) /* P3 */
}

inline answer_is(c, a) {
  atomic {
    if
    :: a == K_SUCCEEDED || a == K_FAILED ->
       assert((a == K_SUCCEEDED) == (receipt[c] == R_SUCCEEDED));      /* P8 */
       if
       :: answered[c] == K_NONE -> answered[c] = a
       :: else -> assert(answered[c] == a)                              /* P8 */
       fi
    :: else -> skip  /* 202 running, ok:null unknown, 403, 409, 410 */
    fi
  }
}

inline durable_execution(c) {
  receipt[c] = R_SUCCEEDED; executed[c]++; changes++;
  assert(changes <= 1)                                                  /* P1 */
}

proctype confirmer(byte me) {
  byte c = 0; byte ok = 0; byte outcome = K_NONE; byte answer = K_NONE;
  if
  :: skip
  :: EDIT && edited_shown -> c = 1
  fi;
  if
  :: me == 1 -> card_reject(c, me, 0, ok); goto done
  :: skip
  fi;
  if
  :: /* the attempt deadline passes before the claim reaches Redis: 503 ... */
     deadline_passed[me] = 1; gave_503[me] = 1;
     if
     :: atomic { card_claim(c, me, 0, ok); assert(ok != 1) }            /* P6 ... late claim */
     :: skip                                                            /* ... or it never does */
     fi;
     assert(!(c_st[c] == CARD_RUNNING && c_holder[c] == me));           /* P6 */
     goto done
  :: atomic { card_claim(c, me, 0, ok); if :: ok == 1 -> claims[c]++ :: else -> skip fi }
  fi;
  if
  :: faults < MAXF ->
     /* the claim ran, its reply was lost (whether it won or not) */
     faults++;
     if
     :: atomic { card_claim(c, me, 0, ok); if :: ok == 1 -> claims[c]++ :: else -> skip fi }
        /* redis-py re-sends it: ALREADY if the first one won */
     :: deadline_passed[me] = 1;  /* the deadline passed: give the claim back, answer 503 */
        card_release(c, me, 0, ok);
        gave_503[me] = 1;
        assert(!(c_st[c] == CARD_RUNNING && c_holder[c] == me));        /* P6 */
        goto done
     fi
  :: skip
  fi;
  if
  :: ok == 1 || ok == 2 -> assert(is_owner(me))                         /* P7 */
  :: else -> goto read_state  /* 202, the stored outcome, 403, 409 or 410 */
  fi;

execute:
  atomic { runs[c]++; assert(runs[c] <= claims[c]) }                    /* P2 */
  if
  :: atomic { receipt[c] == R_NONE && inflight[c] == 0 -> durable_execution(c); outcome = K_SUCCEEDED }
  :: atomic { receipt[c] != R_NONE && inflight[c] == 0 ->
       /* the unique action id fences it: the receipt is the outcome */
       if
       :: receipt[c] == R_SUCCEEDED -> outcome = K_SUCCEEDED
       :: else -> outcome = K_FAILED
       fi }
  :: atomic { faults < MAXF && receipt[c] == R_NONE && inflight[c] == 0 ->
       faults++; inflight[c] = me }     /* the COMMIT was sent, its reply lost */
#ifdef RERUN_AFTER_LOST_COMMIT
     goto execute                       /* seeded bug: retry the action */
#else
     /* look the receipt up on a fresh connection; never re-run */
     if
     :: receipt[c] == R_SUCCEEDED -> outcome = K_SUCCEEDED
     :: else -> outcome = K_UNKNOWN
     fi
#endif
  fi;
  atomic { card_settle(c, me, outcome, ok); success_has_receipt(c) };
  if
  :: ok == 1 || ok == 2 -> answer = outcome; answer_is(c, answer); goto done
  :: else -> skip  /* another attempt holds it, or it was resolved: the stored outcome */
  fi;

read_state:
  atomic {
    if
    :: c_st[c] == CARD_SETTLED -> answer = c_kind[c]
    :: else -> answer = K_NONE
    fi;
    answer_is(c, answer)
  };
done:
  /* forget the locals: a finished request is the same state however it ended */
  c = 0; ok = 0; outcome = K_NONE; answer = K_NONE
}

/* reconcile_cards, and the resolution a confirm or status runs on read. Never executes. */
proctype reconciler() {
  byte c; byte ok; byte outcome; bool lease_seen;
end:
  do
  :: atomic { (c_st[0] == CARD_RUNNING && c_lease[0]) ||
              (c_st[0] == CARD_SETTLED && c_kind[0] == K_UNKNOWN) -> c = 0; lease_seen = c_lease[0] }
     goto resolve
  :: atomic { EDIT && ((c_st[1] == CARD_RUNNING && c_lease[1]) ||
              (c_st[1] == CARD_SETTLED && c_kind[1] == K_UNKNOWN)) -> c = 1; lease_seen = c_lease[1] }
     goto resolve
  od;
resolve:
  if
  :: receipt[c] == R_SUCCEEDED -> outcome = K_SUCCEEDED
  :: receipt[c] == R_VOIDED -> outcome = K_FAILED
  :: receipt[c] == R_NONE && !lease_seen -> c = 0; lease_seen = 0; goto end  /* still open */
  :: receipt[c] == R_NONE && lease_seen ->
     /* the void takes the slot (it waits for a COMMIT in flight, as MariaDB's lock does) */
     atomic {
       inflight[c] == 0;
       if
       :: receipt[c] == R_NONE -> receipt[c] = R_VOIDED
       :: else -> skip
       fi;
       if
       :: receipt[c] == R_SUCCEEDED -> outcome = K_SUCCEEDED
       :: else -> outcome = K_FAILED
       fi
     }
  fi;
  atomic { card_resolve(c, 0, outcome, ok); success_has_receipt(c);
           c = 0; ok = 0; outcome = K_NONE; lease_seen = 0 };
  goto end
}

/* The database ends a COMMIT whose reply was lost: it landed, or it was rolled back. */
proctype database() {
end:
  do
  :: atomic { inflight[0] != 0 ->
       if :: durable_execution(0) :: skip fi; inflight[0] = 0 }
  :: atomic { inflight[1] != 0 ->
       if :: durable_execution(1) :: skip fi; inflight[1] = 0 }
  od
}

/* Time: a lease passes (a worker died or stalled), the continuation's generation lease too. */
proctype clock() {
end:
  do
  :: atomic { !c_lease[0] && (c_st[0] == CARD_RUNNING ||
              (c_st[0] == CARD_SETTLED && c_kind[0] == K_UNKNOWN)) -> c_lease[0] = 1 }
  :: atomic { !c_lease[1] && (c_st[1] == CARD_RUNNING ||
              (c_st[1] == CARD_SETTLED && c_kind[1] == K_UNKNOWN)) -> c_lease[1] = 1 }
  :: atomic { !k_lease[0] && k_st[0] == CONTINUATION_RUNNING -> k_lease[0] = 1 }
  od
}

/* Redis: a ready card expires; a failover forgets the claim or the settlement. */
proctype redis() {
  byte ok;
  if
  :: card_expire(0, 0, 0, ok); ok = 0
  :: skip
  fi;
  do
  :: atomic { FAILOVER && faults < MAXF && (c_st[0] == CARD_RUNNING || c_st[0] == CARD_SETTLED) ->
       faults++; card_failover(0, 0, 0, ok); ok = 0 }
  :: break
  od
}

/* An edit of card 0 (card_edits.edit): issue the new card, then void the old one. */
proctype editor() {
  byte ok;
  if
  :: atomic { c_st[0] == CARD_READY -> card_issue(1, 0, 0, ok) }
     card_edit(0, 0, 0, ok);
     if
     :: ok == 1 -> edited_shown = 1
     :: else -> card_destroy(1, 0, 0, ok)  /* a confirm won: the new token never shows */
     fi
  :: else -> skip  /* not ready: 409 */
  fi;
  ok = 0
}

/* Undo of card 0: offered only for a card whose history row settled succeeded. */
proctype undoer() {
  byte ok;
  atomic { card_undo(0, 0, 0, ok); assert(ok != 1 || executed[0] == 1); ok = 0 }  /* P9 */
}

/* The continuation of card 0: activate on its receipt, claim, generate, settle or release. */
proctype generator(byte me) {
  byte ok; byte tries = 0;
  do
  :: tries < 2 ->
     tries++;
     continuation_activate(0, me, 0, ok);
     continuation_claim(0, me, 0, ok);
     if
     :: ok == 1 || ok == 2 ->
        assert(receipt[0] == R_SUCCEEDED);                              /* P4 */
        if
        :: continuation_release(0, me, 0, ok); ok = 0  /* the generation failed */
        :: atomic { continuation_settle(0, me, K_SUCCEEDED, ok);
                    if :: ok == 1 -> replies++; assert(replies <= 1) :: else -> skip fi } /* P4 */
           break
        fi
     :: else -> ok = 0  /* pending (not ready yet), running elsewhere, or settled */
     fi
  :: break
  od;
  ok = 0; tries = 0
}

/* Two picks of one choice race; a picked card that lost the take is destroyed. */
proctype picker(byte me) {
  byte ok;
  choice_pick(0, me, 0, ok);
  if
  :: ok == 1 -> atomic { picked++; assert(picked <= 1) }                 /* P9 */
  :: else -> skip
  fi;
  ok = 0
}

proctype choice_voider() {
  byte ok;
  choice_void(0, 0, 0, ok);
  ok = 0
}

init {
  byte i;
  atomic {
    c_st[0] = CARD_READY;
    k_st[0] = CONTINUATION_PENDING;
    h_st[0] = CHOICE_READY;
    i = 1;
    do
    :: i <= NW -> run confirmer(i); i++
    :: else -> break
    od;
    run reconciler(); run database(); run clock(); run redis();
    if :: EDIT -> run editor() :: else -> skip fi;
    if :: UNDO -> run undoer() :: else -> skip fi;
    i = 1;
    do
    :: i <= NGEN -> run generator(i); i++
    :: else -> break
    od;
    if :: CHOICE -> run picker(1); run picker(2); run choice_voider() :: else -> skip fi
  }
}

#ifndef NO_LTL
ltl leaves_running {
  [] ((c_st[0] == CARD_RUNNING -> <> (c_st[0] != CARD_RUNNING)) &&
      (c_st[1] == CARD_RUNNING -> <> (c_st[1] != CARD_RUNNING)))
}
ltl unknown_resolved {
  [] ((c_st[0] == CARD_SETTLED && c_kind[0] == K_UNKNOWN) ->
      <> !(c_st[0] == CARD_SETTLED && c_kind[0] == K_UNKNOWN))
}
#endif
