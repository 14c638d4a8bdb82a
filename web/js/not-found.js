// The page of an address we do not serve (answered with 404): said in the page's language, with
// the ways home and to a game.

import { part } from './dom.js';
import { mountLanguageSwitch } from './i18n.js';

mountLanguageSwitch(part('language'));
