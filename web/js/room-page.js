// The room page's entry: the controller (room.js) wired to the real world — this page's
// elements, the server's HTTP API and WebSocket, the browser's location — and the language switch.

import { part } from './dom.js';
import { mountLanguageSwitch, onLanguageChange } from './i18n.js';
import { roomSummary, joinRoom, roomRecord, roomAnalysis, saveSeat, loadSeat, forgetSeat, createMe } from './api.js';
import { RoomSocket } from './connection.js';
import { createRoomView } from './room-view.js';
import { createRoom } from './room.js';
import { mountSoundSwitch } from './sound.js';
import { mountTournamentBack } from './tournament-back.js';
import { mountClassBack, reportStumble } from './class-stumbles.js';

const room = createRoom(part('room'), {
  roomId: decodeURIComponent(location.pathname.split('/')[2] ?? ''),
  api: { roomSummary, joinRoom, roomRecord, roomAnalysis, saveSeat, loadSeat, forgetSeat, createMe, stumbled: reportStumble },
  connect: (roomId, token, handlers) => new RoomSocket(roomId, token, handlers),
  createView: createRoomView,
  navigate: (url) => location.assign(url),
});
mountLanguageSwitch(part('language'));
mountSoundSwitch(part('sound'));
onLanguageChange(room.relabel);
mountTournamentBack(part('tournament-back'), decodeURIComponent(location.pathname.split('/')[2] ?? ''));
mountClassBack(part('class-back'), decodeURIComponent(location.pathname.split('/')[2] ?? ''));
room.start();
