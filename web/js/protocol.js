// Generated from the server's Rust types by `SENET_BLESS=1 cargo test --test vocabulary`.
// Do not edit: tests/vocabulary.rs fails when this file and the server differ.

export const ErrorCode = Object.freeze({
  BadJson: 'bad_json',
  UnknownType: 'unknown_type',
  BadRequest: 'bad_request',
  NotSeated: 'not_seated',
  NotYourTurn: 'not_your_turn',
  MustRoll: 'must_roll',
  AlreadyRolled: 'already_rolled',
  IllegalMove: 'illegal_move',
  GameOver: 'game_over',
  GameNotStarted: 'game_not_started',
  NoDrawOffer: 'no_draw_offer',
  DrawNotAllowed: 'draw_not_allowed',
  HintNotAllowed: 'hint_not_allowed',
  CannotClaim: 'cannot_claim',
  RematchNotAvailable: 'rematch_not_available',
  ClientSeedLocked: 'client_seed_locked',
  RoomLogFull: 'room_log_full',
  HelloRequired: 'hello_required',
  BadToken: 'bad_token',
  RoomNotFound: 'room_not_found',
  RoomFull: 'room_full',
  NotFinished: 'not_finished',
  OriginNotAllowed: 'origin_not_allowed',
  TooManyConnections: 'too_many_connections',
  RateLimited: 'rate_limited',
  SeekTaken: 'seek_taken',
  TooManySeeks: 'too_many_seeks',
  SeekOpen: 'seek_open',
  NoPlayer: 'no_player',
  BadName: 'bad_name',
  NameReserved: 'name_reserved',
  NameTaken: 'name_taken',
  RenameTooSoon: 'rename_too_soon',
  BadCode: 'bad_code',
  BadSubscription: 'bad_subscription',
  TooManySubscriptions: 'too_many_subscriptions',
  RatedNeedsPlayer: 'rated_needs_player',
  SeatOfAnotherPlayer: 'seat_of_another_player',
  UnknownPreset: 'unknown_preset',
  ChatTooLong: 'chat_too_long',
  ChatHasToken: 'chat_has_token',
  ChatNotAllowed: 'chat_not_allowed',
  ChatNeedsPlayer: 'chat_needs_player',
  ChatRepeat: 'chat_repeat',
  ChatFlood: 'chat_flood',
  ChatMuted: 'chat_muted',
  ChatTimedOut: 'chat_timed_out',
  ChatFull: 'chat_full',
  PuzzleNotFound: 'puzzle_not_found',
  PuzzleNotAsked: 'puzzle_not_asked',
  TournamentNotFound: 'tournament_not_found',
  TournamentClosed: 'tournament_closed',
  TournamentFull: 'tournament_full',
  TooManyTournaments: 'too_many_tournaments',
  ClassNotFound: 'class_not_found',
  ClassCodeUnknown: 'class_code_unknown',
  ClassFull: 'class_full',
  PupilNameTaken: 'pupil_name_taken',
  TooManyClasses: 'too_many_classes',
  NoPupil: 'no_pupil',
  ChallengeNotFound: 'challenge_not_found',
  ChallengeClosed: 'challenge_closed',
  TooManyChallenges: 'too_many_challenges',
  Blocked: 'blocked',
  TooManyFollows: 'too_many_follows',
  TooManyBlocks: 'too_many_blocks',
  Unavailable: 'unavailable',
  Internal: 'internal',
});

export const IllegalReason = Object.freeze({
  GameOver: 'game_over',
  NoOwnPiece: 'no_own_piece',
  OccupiedByOwn: 'occupied_by_own',
  SafeSquare: 'safe_square',
  Blocked: 'blocked',
  MustStopOn26: 'must_stop_on_26',
  NotExactToBearOff: 'not_exact_to_bear_off',
});

export const ClientMessage = Object.freeze({
  Hello: 'hello',
  Seed: 'seed',
  Roll: 'roll',
  Move: 'move',
  Resign: 'resign',
  DrawOffer: 'draw-offer',
  DrawAccept: 'draw-accept',
  DrawDecline: 'draw-decline',
  ClaimVictory: 'claim-victory',
  Rematch: 'rematch',
  Hint: 'hint',
  Chat: 'chat',
  ChatSettings: 'chat-settings',
  Mute: 'mute',
  Report: 'report',
  Sync: 'sync',
  Ping: 'ping',
});

export const Reply = Object.freeze({
  Welcome: 'welcome',
  State: 'state',
  Ack: 'ack',
  Error: 'error',
  Pong: 'pong',
  Seat: 'seat',
  Watchers: 'watchers',
  Rated: 'rated',
});

export const Event = Object.freeze({
  Started: 'started',
  ClientSeed: 'client-seed',
  Rolled: 'rolled',
  Moved: 'moved',
  Passed: 'passed',
  DrawOffered: 'draw-offered',
  DrawCancelled: 'draw-cancelled',
  Presence: 'presence',
  GameOver: 'game-over',
  RematchOffered: 'rematch-offered',
  Rematch: 'rematch',
  Hinted: 'hinted',
  Resumed: 'resumed',
  Paused: 'paused',
  Said: 'said',
  ChatSet: 'chat-set',
  Muted: 'muted',
  ChatHidden: 'chat-hidden',
});

export const Mode = Object.freeze({
  Online: 'online',
  Local: 'local',
  Ai: 'ai',
});

export const Seat = Object.freeze({
  Black: 'black',
  White: 'white',
  Both: 'both',
  Spectator: 'spectator',
});

export const Phase = Object.freeze({
  Waiting: 'waiting',
  Roll: 'roll',
  Move: 'move',
  Over: 'over',
});

export const Status = Object.freeze({
  Waiting: 'waiting',
  Playing: 'playing',
  Finished: 'finished',
});

export const Winner = Object.freeze({
  Black: 'black',
  White: 'white',
  Draw: 'draw',
  None: 'none',
});

export const EndReason = Object.freeze({
  BorneOff: 'borne-off',
  Resign: 'resign',
  Agreement: 'agreement',
  Abandon: 'abandon',
  Timeout: 'timeout',
  Operator: 'operator',
});

export const CancelReason = Object.freeze({
  Declined: 'declined',
  Withdrawn: 'withdrawn',
  Lapsed: 'lapsed',
});

export const Effect = Object.freeze({
  Step: 'step',
  Swap: 'swap',
  Water: 'water',
  Off: 'off',
});

export const Level = Object.freeze({
  Easy: 'easy',
  Medium: 'medium',
  Hard: 'hard',
});

export const LobbyMessage = Object.freeze({
  Hold: 'hold',
  More: 'more',
  Ping: 'ping',
});

export const LobbyFrame = Object.freeze({
  Lobby: 'lobby',
  Seeks: 'seeks',
  Changes: 'changes',
  Held: 'held',
  Challenge: 'challenge',
  Error: 'error',
  Pong: 'pong',
});

export const SeekGone = Object.freeze({
  Taken: 'taken',
  Cancelled: 'cancelled',
  Withdrawn: 'withdrawn',
});

export const ChallengeMessage = Object.freeze({
  Hello: 'hello',
  Rematch: 'rematch',
  Practice: 'practice',
  Friendly: 'friendly',
});

export const DeclineReason = Object.freeze({
  Generic: 'generic',
  Later: 'later',
  TooFast: 'too-fast',
  TooSlow: 'too-slow',
  RatedOnly: 'rated-only',
  CasualOnly: 'casual-only',
});

export const ChallengeStatus = Object.freeze({
  Pending: 'pending',
  Accepted: 'accepted',
  Declined: 'declined',
  Cancelled: 'cancelled',
  Expired: 'expired',
});

export const DEFAULT_LEVEL = 'medium';

export const PROTOCOL = 2;
