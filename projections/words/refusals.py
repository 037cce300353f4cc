"""The words of every refusal, in English and French from the same facts.

The domain refuses with a code, a reason key, a rule id and parameters
(domain/errors.py); this room words them, as the narrators word events. A template names
its parameters in braces; a parameter that was a combatant is said by its name. Nothing
here reads a sentence back: there is no pattern matching, and a reason without words is
a test failure (tests/unit/test_refusal_words.py), not a fallback at run time.
"""

from __future__ import annotations

import string
from collections.abc import Mapping
from typing import Any

from domain.errors import Refused
from domain.rules import REGISTRY
from projections.words.french import de

__all__ = ["CODES", "WORDS", "said", "word", "word_reason"]

# reason -> (English, French). Keys are stable: clients may switch on them.
WORDS: dict[str, tuple[str, str]] = {}


def _add(table: Mapping[str, tuple[str, str]]) -> None:
    for key, pair in table.items():
        assert key not in WORDS or WORDS[key] == pair, f"two words for {key}"
        WORDS[key] = pair


# --- the encounter, shared by every rule system ---------------------------------------
_add(
    {
        "out_of_the_fight": (
            "{who} is out of the fight ({out})",
            "{who} est hors de combat ({out})",
        ),
        "answer_pending_first": (
            "{target} must first answer the pending attack",
            "{target} doit d'abord répondre à l'attaque en attente",
        ),
        "initiative_before_combat": (
            "initiative is set before combat starts",
            "l'initiative se fixe avant le début du combat",
        ),
        "no_combatants_yet": (
            "add combatants before rolling initiative",
            "ajoutez des combattants avant de lancer l'initiative",
        ),
        "combat_started": ("combat has already started", "le combat a déjà commencé"),
        "combat_not_started": ("combat has not started", "le combat n'a pas commencé"),
        "needs_two_combatants": (
            "a fight needs at least two combatants",
            "un combat demande au moins deux combattants",
        ),
        "no_attack_waiting": (
            "no attack is waiting for {actor}'s answer",
            "aucune attaque n'attend la réponse {de_actor}",
        ),
        "not_turn_of": ("it is not {actor}'s turn", "ce n'est pas le tour {de_actor}"),
        "nothing_to_undo": ("there is nothing to undo", "il n'y a rien à annuler"),
        "deadline_off": (
            "this encounter has no turn deadline",
            "cette rencontre n'a pas de délai de tour",
        ),
        "deadline_wait_over": (
            "the wait that began at version {since} is over",
            "l'attente commencée à la version {since} est finie",
        ),
        "deadline_already": (
            "the deadline of the wait that began at version {since} was already applied",
            "le délai de l'attente commencée à la version {since} s'est déjà appliqué",
        ),
        "nobody_standing": (
            "nobody is left standing: close the encounter",
            "plus personne n'est debout : close la rencontre",
        ),
        "entropy_after_first_roll": (
            "entropy can only be added before the first roll",
            "l'entropie ne s'ajoute qu'avant le premier jet",
        ),
        "fight_not_decided": (
            "the fight goes on: more than one side is standing",
            "le combat continue : plus d'un camp est encore debout",
        ),
        "encounter_closed": ("the encounter is closed", "la rencontre est close"),
        "limit_used": (
            "{actor} has already used {ability} ({limit} per {scope})",
            "{actor} a déjà utilisé {ability} ({limit} par {scope})",
        ),
        "no_armor_to_repair": (
            "{system} has no armor to repair",
            "{system} n'a pas d'armure à réparer",
        ),
        "conflict": (
            "the encounter kept changing under this command; send it again",
            "la rencontre a changé pendant cette commande : renvoyez-la",
        ),
        "war_conflict": (
            "the War kept changing under this command; send it again",
            "la Guerre a changé pendant cette commande : renvoyez-la",
        ),
        "close_before_carry_back": (
            "close the encounter before carrying it back",
            "clôturez la rencontre avant de la reporter dans la Guerre",
        ),
    }
)

# --- why an action is not offered now (the board's `legal`), shared words --------------
_add(
    {
        "not_your_turn": ("not your turn", "ce n'est pas votre tour"),
        "already_attacked": ("already attacked", "a déjà attaqué"),
        "no_target": ("no target", "aucune cible"),
        "once_per_session": ("once per session", "une fois par session"),
        "out": ("out of the fight", "hors de combat"),
    }
)

# --- d20-na -----------------------------------------------------------------------------
_add(
    {
        "waiting_for_defense": ("waiting for a defense", "une défense est attendue"),
        "shooting_weapon_in_melee": (
            "a shooting weapon cannot strike in melee",
            "une arme de tir ne frappe pas en mêlée",
        ),
        "not_a_weapon_of_mode": (
            "{weapon} is not a {mode} weapon",
            "{weapon} n'est pas une arme {mode}",
        ),
        "cannot_be_defended": (
            "this attack cannot be parried or dodged",
            "cette attaque ne peut être ni parée ni esquivée",
        ),
        "ranged_not_dodged": (
            "a ranged attack cannot be dodged",
            "une attaque à distance ne s'esquive pas",
        ),
        "projectile_shield_only": (
            "a projectile can only be parried with a shield",
            "un projectile ne se pare qu'au bouclier",
        ),
        "defense_now_costs": (
            "a {action} now costs {cost} half-action(s); {left} left this round",
            "{action} coûte maintenant {cost} demi-action(s) ; il en reste {left} ce round",
        ),
        "defenses_per_round": (
            "no more than {limit} {defense} per round",
            "pas plus de {limit} {defense} par round",
        ),
        "no_weapon_of_mode": ("no {mode} weapon on the sheet", "aucune arme {mode} sur la fiche"),
        "nothing_to_reload": ("nothing to reload", "rien à recharger"),
        "resolver_melee_only": (
            "the 1v1 resolver is melee only",
            "le résolveur 1 contre 1 ne joue que la mêlée",
        ),
        "resolver_does_not_aim": (
            "the 1v1 resolver does not aim",
            "le résolveur 1 contre 1 ne vise pas",
        ),
        "reload_first": ("reload first", "rechargez d'abord"),
        "charge_ends_in_melee": (
            "a charge ends in a melee attack",
            "une charge se termine par une attaque au corps-à-corps",
        ),
        "charge_ends_on_target": (
            "a charge ends in a melee attack on its target",
            "une charge se termine par une attaque au corps-à-corps sur sa cible",
        ),
        "no_charge_in_melee": (
            "cannot charge while engaged in melee",
            "impossible de charger en mêlée",
        ),
        "passing_off": (
            "passing is off in this encounter",
            "passer est désactivé dans cette rencontre",
        ),
        "charge_then_attack": (
            "a charge must be followed by its attack",
            "une charge doit être suivie de son attaque",
        ),
        "cannot_be_attacked_now": (
            "{target} cannot be attacked now",
            "{target} ne peut pas être attaqué maintenant",
        ),
        "must_be_reloaded": ("{weapon} must be reloaded", "{weapon} doit être rechargée"),
        "only_gm_decides": (
            "only the GM decides {flag}",
            "seul le MJ décide de « {flag} »",
        ),
        "two_handed_with_shield": (
            "{weapon} is two-handed and cannot be used with a shield",
            "{weapon} se manie à deux mains et ne s'utilise pas avec un bouclier",
        ),
        "two_two_handed": (
            "two two-handed weapons cannot be used together: {weapons}",
            "deux armes à deux mains ne s'utilisent pas ensemble : {weapons}",
        ),
        "not_off_hand": (
            "{weapon} cannot be wielded in the off hand",
            "{weapon} ne se manie pas de la main non directrice",
        ),
        "shield_no_second_weapon": (
            "a shield leaves no hand for a second weapon",
            "un bouclier ne laisse pas de main pour une seconde arme",
        ),
        "dual_needs_one_handed": (
            "dual wielding needs a one-handed main weapon",
            "combattre à deux armes demande une arme principale à une main",
        ),
        "something_in_the_way": (
            "something stands in the way",
            "quelque chose fait obstacle",
        ),
        "not_waiting_reload": (
            "'{weapon}' is not waiting to be reloaded",
            "« {weapon} » n'attend pas d'être rechargée",
        ),
        "budget_short_for": (
            "{actor} needs {cost} half-action(s) for {action} but has {left} left this round",
            "{actor} a besoin de {cost} demi-action(s) pour {action}, il en reste {left} ce round",
        ),
        "budget_short": (
            "{actor} needs {cost} half-action(s), has {left} left",
            "{actor} a besoin de {cost} demi-action(s), il en reste {left}",
        ),
        "slot_taken": (
            "a slot is one action or two half-actions: end the turn first",
            "un créneau, c'est une action ou deux demi-actions : finissez d'abord le tour",
        ),
    }
)

# --- ranks-d100 -------------------------------------------------------------------------
_add(
    {
        "fleeing_cannot_attack": (
            "{actor} is fleeing and cannot attack",
            "{actor} est en fuite et ne peut pas attaquer",
        ),
        "luck_before_own_action": (
            "a Luck die is rolled just before your own action",
            "un jet de Chance se lance juste avant votre propre action",
        ),
        "luck_before_action_die": (
            "the Luck die comes before the action's die",
            "le jet de Chance précède le dé de l'action",
        ),
        "luck_result_waiting": (
            "a Luck result already waits for the next roll",
            "un résultat de Chance attend déjà le prochain jet",
        ),
        "no_luck_left": (
            "{actor} has no Luck uses left this War",
            "{actor} n'a plus de jet de Chance pour cette Guerre",
        ),
        "mana_own_pair_only": (
            "{actor} can only give mana to their own Master or Servant",
            "{actor} ne peut donner de PM qu'à son propre Master ou Servant",
        ),
        "pool_full_one_for_one": (
            "{target}'s pool holds only {mana}: 1 given must be 1 received",
            "la réserve {de_target} ne contient que {mana} PM : 1 donné doit être 1 reçu",
        ),
        "mana_short": (
            "{actor} has {mana} mana; this {action} at rank {rank} costs {cost}",
            "{actor} a {mana} PM ; {action} au rang {rank} en coûte {cost}",
        ),
        "rank_above_cap": (
            "{actor} can attack at rank {own} at most with {stat}, not {rank}",
            "{actor} attaque au plus au rang {own} avec {stat}, pas {rank}",
        ),
        "no_magic_stat": (
            "{actor} has no Magic stat to cast with",
            "{actor} n'a pas de caractéristique Magie pour lancer un sort",
        ),
        "servants_only_np": (
            "only Servants have Noble Phantasms",
            "seuls les Servants ont des Noble Phantasmes",
        ),
        "no_noble_phantasm": (
            "{actor} has no Noble Phantasm {name}",
            "{actor} n'a pas de Noble Phantasme {name}",
        ),
        "no_advanced_spell": (
            "{actor} has no Advanced Spell {name}",
            "{actor} n'a pas de Sort Avancé {name}",
        ),
        "switch_not_rolled_here": (
            "{other} is not rolled here: a switch lasts one roll",
            "{other} n'est pas lancé ici : une bascule dure un jet",
        ),
        "no_positive_half_rank": (
            "{stat} ({rank}) has no positive half-rank to activate",
            "{stat} ({rank}) n'a pas de demi-rang positif à activer",
        ),
        "no_negative_half_rank": (
            "{stat} ({rank}) has no negative half-rank to deactivate",
            "{stat} ({rank}) n'a pas de demi-rang négatif à désactiver",
        ),
        "elemental_counter_gm": (
            "an Elemental Magic user's counter follows rules the GM settles",
            "la Contre-Attaque d'un utilisateur de Magie Élémentaire suit des règles que le MJ"
            " tranche",
        ),
        "no_servant_to_intercept": (
            "{master} has no Servant to intercept",
            "{master} n'a pas de Servant pour intercepter",
        ),
        "intercept_endurance_only": (
            "an intercepting Servant may only reduce with Endurance",
            "un Servant qui intercepte ne réduit qu'avec l'Endurance",
        ),
        "counter_same_type": (
            "a {type} attack can only be countered by a {type} attack, not {type_}",
            "une attaque {type} ne se contre que par une attaque {type}, pas {type_}",
        ),
        "counter_chain_length": (
            "{n} chained attacks are countered only by at least {n} chained attacks",
            "{n} attaques enchaînées ne se contrent que par au moins {n} attaques enchaînées",
        ),
        "counter_rank_too_low": (
            "a rank-{theirs} attack is blocked only by a counter of rank {theirs} or higher,"
            " not {rank}",
            "une attaque de rang {theirs} ne se bloque que par une Contre-Attaque de rang"
            " {theirs} ou plus, pas {rank}",
        ),
        "counter_names_attack": (
            "options.action names the counter's attack: {attacks}",
            "options.action nomme l'attaque de la Contre-Attaque : {attacks}",
        ),
        "no_counter_fits": (
            "no counter of the same type at rank {rank} or higher within your caps and mana",
            "aucune Contre-Attaque du même type au rang {rank} ou plus dans vos plafonds et vos PM",
        ),
        "flight_answers": (
            "a flight is answered with block_flight or none",
            "une fuite se répond par block_flight ou none",
        ),
        "not_an_answer": (
            "{reaction} does not answer an attack",
            "{reaction} ne répond pas à une attaque",
        ),
        "seals_masters_only": (
            "sheet.command_seals is for Masters only",
            "sheet.command_seals est réservé aux Masters",
        ),
        "no_seal_left": (
            "{master} has no Command Seal left (sheet.command_seals)",
            "{master} n'a plus de Sceau de Commandement (sheet.command_seals)",
        ),
        "too_many_ex": (
            "a {kind} may have {cap} stat(s) at EX, not {ex}",
            "un {kind} peut avoir {cap} caractéristique(s) à EX, pas {ex}",
        ),
        "servant_needs_np": (
            "a Servant needs a Noble Phantasm stat (NP)",
            "un Servant a besoin d'une caractéristique Noble Phantasme (NP)",
        ),
        "servants_only_field": (
            "sheet.{servant_only} is for Servants only",
            "sheet.{servant_only} est réservé aux Servants",
        ),
        "skill_is_passive": (
            "{skill} is passive: always on, never switched",
            "{skill} est passive : toujours active, jamais basculée",
        ),
        "skill_in_effect": ("{skill} is already in effect", "{skill} fait déjà effet"),
        "rank_mixes_signs": (
            "'{text}' mixes + and -: a + removes the - (RK-10)",
            "« {text} » mêle + et - : un + retire le - (RK-10)",
        ),
        "ex_no_half_ranks": (
            "'{text}': EX takes no half-ranks (RK-11)",
            "« {text} » : EX ne prend pas de demi-rang (RK-11)",
        ),
        "rank_too_many_plus": (
            "'{text}': at most three + (a fourth raises the rank, RK-9)",
            "« {text} » : trois + au plus (un quatrième élève le rang, RK-9)",
        ),
        "rank_too_many_minus": (
            "'{text}': at most one - (RK-10)",
            "« {text} » : un - au plus (RK-10)",
        ),
        # why an action is not offered now (the board's `legal`)
        "not_your_attack_phase": ("not your attack phase", "ce n'est pas votre phase d'attaque"),
        "complex_action_made": (
            "already made this phase's complex action",
            "a déjà fait l'action complexe de cette phase",
        ),
        "no_opponent_left": ("no opponent left", "plus d'adversaire"),
        "fleeing_this_tour": ("fleeing this Tour", "en fuite ce Tour"),
        "not_enough_mana": ("not enough mana", "pas assez de PM"),
        "luck_before_own_roll": (
            "Luck comes just before your own roll",
            "la Chance se lance juste avant votre jet",
        ),
        "no_luck_uses_left": ("no Luck uses left this War", "plus de jet de Chance cette Guerre"),
        "no_partner_with_room": (
            "no Master or Servant here with room for mana",
            "aucun Master ni Servant ici n'a de place pour des PM",
        ),
        "keep_one_mana": ("must keep at least 1 mana", "doit garder au moins 1 PM"),
        "every_skill_in_effect": (
            "every active skill is already in effect",
            "chaque compétence active fait déjà effet",
        ),
        "no_servant_left": ("no Servant left to intercept", "plus de Servant pour intercepter"),
        "knows_no_np": ("knows no Noble Phantasm", "ne connaît aucun Noble Phantasme"),
        "knows_no_spell": ("knows no advanced spell", "ne connaît aucun Sort Avancé"),
    }
)

# --- d100-tcs ---------------------------------------------------------------------------
_add(
    {
        "declare_at_turn_start": (
            "both actions are declared at the start of the turn",
            "les deux actions se déclarent au début du tour",
        ),
        "wears_no_armor": ("{who} wears no armor", "{who} ne porte pas d'armure"),
        "armor_intact": ("{who}'s armor is intact", "l'armure {de_who} est intacte"),
        "target_foe_in_fight": (
            "the target must be a foe still in the fight",
            "la cible doit être un adversaire encore en lice",
        ),
        "energy_short": (
            "{actor} needs {need} NRJ for {spell}, has {energy}",
            "{actor} a besoin de {need} NRJ pour {spell}, en a {energy}",
        ),
        "prone_stand_or_flee": (
            "{actor} is prone: stand up or flee",
            "{actor} est à terre : se relever ou fuir",
        ),
        "flight_off": (
            "flight is an advanced rule, off here",
            "la fuite est une règle avancée, désactivée ici",
        ),
        "actions_short": (
            "{action} needs {need} action(s), {left} left",
            "{action} demande {need} action(s), il en reste {left}",
        ),
        "no_weapon": ("{actor} has no weapon", "{actor} n'a pas d'arme"),
        "fleer_not_struck": (
            "a fleer is pursued or shot, not struck",
            "un fuyard se poursuit ou se vise, il ne se frappe pas",
        ),
        "rejoin_melee_first": (
            "{actor} must first rejoin the melee",
            "{actor} doit d'abord rejoindre la mêlée",
        ),
        "no_unbroken_shield": (
            "{foe} has no unbroken shield",
            "{foe} n'a pas de bouclier intact",
        ),
        "beyond_range": (
            "beyond twice the {base} m base range",
            "au-delà du double de la portée de base de {base} m",
        ),
        "knows_no_such_spell": (
            "{actor} knows no spell {spell}",
            "{actor} ne connaît pas de sort {spell}",
        ),
        "no_such_item": ("{actor} carries no '{item}'", "{actor} n'a pas « {item} »"),
        "nothing_to_use": ("{actor} carries nothing to use", "{actor} n'a rien à utiliser"),
        "no_potion_left": (
            "{actor} has no potion {potion} left",
            "{actor} n'a plus de potion {potion}",
        ),
        "no_drinking_in_melee": (
            "no drinking while engaged in melee",
            "on ne boit pas au contact, en mêlée",
        ),
        "sprint_range": (
            "sprint is 0 to {max} extra metres",
            "un sprint ajoute de 0 à {max} mètres",
        ),
        "not_prone": ("{actor} is not prone", "{actor} n'est pas à terre"),
        "flight_declared": (
            "{actor} has already declared flight",
            "{actor} a déjà déclaré sa fuite",
        ),
        "not_fleeing": ("{foe} is not fleeing", "{foe} ne fuit pas"),
        "already_in_melee": ("{actor} is already in the melee", "{actor} est déjà dans la mêlée"),
        "no_such_technique": (
            "{actor} has no technique or skill '{tcs}'",
            "{actor} n'a ni technique ni compétence « {tcs} »",
        ),
        "no_foe_fleeing": ("no foe is fleeing", "aucun adversaire ne fuit"),
        "spells_test_mm": ("{where}: spells always test MM", "{where} : un sort teste toujours MM"),
        "needs_under_protection": (
            "{armor} requires an under-protection",
            "{armor} demande une sous-protection",
        ),
        "armor_too_heavy": (
            "the armor worn needs {need} END, the wearer has {have}",
            "l'armure portée demande {need} END, son porteur en a {have}",
        ),
        "shield_needs_mastery": (
            "carrying a shield requires Shield Mastery",
            "porter un bouclier demande la Maîtrise du bouclier",
        ),
        "tcs_no_reactions": ("d100-tcs has no reactions", "d100-tcs n'a pas de réactions"),
        "initiative_every_round": (
            "initiative is rolled again every round in d100-tcs",
            "en d100-tcs, l'initiative se relance à chaque round",
        ),
        "turn_declared": (
            "this turn's actions are declared",
            "les actions de ce tour sont déclarées",
        ),
    }
)

# --- the War (ranks-d100 campaigns) -----------------------------------------------------
_add(
    {
        "only_servant_names_master": (
            "only a Servant names a Master",
            "seul un Servant désigne un Master",
        ),
        "mana_master_servant_only": (
            "mana goes only between a Master and its Servant",
            "le mana ne passe qu'entre un Master et son Servant",
        ),
        "must_keep_one_mana": (
            "{giver} must keep at least 1 mana",
            "{giver} doit garder au moins 1 PM",
        ),
        "pool_full": (
            "{receiver}'s pool holds only {mana}",
            "la réserve {de_receiver} ne contient que {mana} PM",
        ),
        "death_is_final": (
            "{character} is dead, and death is final",
            "{character} est mort, et la mort est définitive",
        ),
    }
)

# --- the request's own form (`invalid`, `forbidden`, `not_found`): a field, a value ----
_add(
    {
        "unknown_rule_system_known": (
            "unknown rule system '{ruleset}'; known: {registry}",
            "système de règles « {ruleset} » inconnu ; connus : {registry}",
        ),
        "only_gm_may": ("only the GM may {what}", "seul le MJ peut {what}"),
        "does_not_control": (
            "{role} does not control {actor}",
            "un {role} ne contrôle pas {actor}",
        ),
        "cannot_hide_sheet_resources_are": (
            "cannot hide {unknown}: the sheet's resources are {resources}",
            "impossible de cacher {unknown} : les ressources de la fiche sont {resources}",
        ),
        "only_encounter_opened_war_takes": (
            "only an encounter opened in a War takes a War character",
            "seule une rencontre ouverte dans une Guerre prend un personnage de Guerre",
        ),
        "unknown_action_known": (
            "unknown action '{action}'; known: {actions}",
            "action « {action} » inconnue ; connues : {actions}",
        ),
        "needs_target": ("{action} needs a target", "{action} demande une cible"),
        "unknown_reaction_known": (
            "unknown reaction '{reaction}'; known: {reactions}",
            "réaction « {reaction} » inconnue ; connues : {reactions}",
        ),
        "no_roll_this_encounter": (
            "no roll {roll} in this encounter",
            "aucun jet n°{roll} dans cette rencontre",
        ),
        "condition_needs_name": ("a condition needs a name", "un état demande un nom"),
        "already_has_conditions": (
            "{who} already has {max} conditions",
            "{who} a déjà {max} états",
        ),
        "no_such_condition": (
            "{who} has no condition '{condition}'",
            "{who} n'a pas l'état « {condition} »",
        ),
        "order_must_list_each_once": (
            "order must list each of {names} once",
            "l'ordre doit citer une fois chacun de {names}",
        ),
        "roll_has_no_open_dispute": (
            "roll {roll} has no open dispute",
            "le jet n°{roll} n'a pas de contestation ouverte",
        ),
        "answer_needs_some_words": ("an answer needs some words", "une réponse demande des mots"),
        "no_such_encounter": ("no such encounter", "cette rencontre n'existe pas"),
        "spectators_only_watch": ("spectators only watch", "les spectateurs ne font que regarder"),
        "unknown_setting_for": (
            "unknown setting '{key}' for {id}",
            "réglage « {key} » inconnu pour {id}",
        ),
        "unknown_preset_known": (
            "unknown preset '{preset}'; known: {presets}",
            "modèle « {preset} » inconnu ; connus : {presets}",
        ),
        "undo_inside_step": (
            "version {version} is inside one command's events; undo to a version that ends a"
            " step ({before} or {after})",
            "la version {version} est au milieu des événements d'une commande ; annule jusqu'à"
            " une version qui termine une étape ({before} ou {after})",
        ),
        "version_must_below_current_version": (
            "to_version must be below the current version {version}",
            "to_version doit être inférieur à la version actuelle {version}",
        ),
        "dice_entered_were_not_used": (
            "{left} of the dice entered were not used",
            "{left} des dés saisis n'ont pas servi",
        ),
        "setting_takes": ("setting '{key}' takes a {type}", "le réglage « {key} » prend un {type}"),
        "setting_must_one": (
            "setting '{key}' must be one of {choices}",
            "le réglage « {key} » doit être l'un de {choices}",
        ),
        "setting_whole_number_from": (
            "setting '{key}' is a whole number from {low} to {high}",
            "le réglage « {key} » est un nombre entier de {low} à {high}",
        ),
        "setting_holds_most_items": (
            "setting '{key}' holds at most {max_items} items",
            "le réglage « {key} » contient au plus {max_items} éléments",
        ),
        "setting_takes_only_not": (
            "setting '{key}' takes only {items}: not {bad}",
            "le réglage « {key} » ne prend que {items} : pas {bad}",
        ),
        "unknown_attack_options": (
            "unknown attack options {unknown}",
            "options d'attaque inconnues : {unknown}",
        ),
        "cannot_aim_zones": (
            "cannot aim at '{aim}'; zones: {aimable}",
            "impossible de viser « {aim} » ; zones : {aimable}",
        ),
        "distance_whole_number_metres": (
            "distance is a whole number of metres",
            "la distance est un nombre entier de mètres",
        ),
        "true_false": ("{flag} is true or false", "{flag} vaut true ou false"),
        "cannot_parry_with": ("cannot parry with '{name}'", "impossible de parer avec « {name} »"),
        "sheet_skills_must_object": (
            "sheet.skills must be an object",
            "sheet.skills doit être un objet",
        ),
        "unknown_skills_known": (
            "unknown skills: {unknown}; known: {skills}",
            "compétences inconnues : {unknown} ; connues : {skills}",
        ),
        "must_be_object": ("{where} must be an object", "{where} doit être un objet"),
        "unknown_fields": (
            "{where}: unknown fields {unknown}",
            "{where} : champs inconnus {unknown}",
        ),
        "kind_must_one": (
            "{where}.kind must be one of {kinds}",
            "{where}.kind doit être l'un de {kinds}",
        ),
        "dice_must_text_such_as": (
            "{where}.dice must be text such as 1d6",
            "{where}.dice doit être un texte comme 1d6",
        ),
        "dice_unreadable": ("{where}.dice: {e}", "{where}.dice illisible : {e}"),
        "sheet_shield_must_null": (
            "sheet.shield must be {{name, parry}} or null",
            "sheet.shield doit être {{name, parry}} ou null",
        ),
        "sheet_armor_must_object_zone": (
            "sheet.armor must be an object of zone: points",
            "sheet.armor doit être un objet zone : points",
        ),
        "sheet_off_hand_names_no": (
            "sheet.off_hand names no weapon of the sheet: '{name}'",
            "sheet.off_hand ne nomme aucune arme de la fiche : « {name} »",
        ),
        "sheet_weapons_must_list_most": (
            "sheet.weapons must be a list of at most 8 weapons",
            "sheet.weapons doit être une liste d'au plus 8 armes",
        ),
        "weapon_names_must_unique_on": (
            "weapon names must be unique on a sheet",
            "les noms d'armes d'une fiche doivent être uniques",
        ),
        "unknown_armor_zone_zones": (
            "unknown armor zone '{key}'; zones: {armor_keys}",
            "zone d'armure « {key} » inconnue ; zones : {armor_keys}",
        ),
        "no_weapon_on_sheet": (
            "no weapon '{name}' on the sheet",
            "aucune arme « {name} » sur la fiche",
        ),
        "must_whole_number_from": (
            "{where} must be a whole number from {low} to {high}",
            "{where} doit être un nombre entier de {low} à {high}",
        ),
        "must_true_false": ("{where} must be true or false", "{where} doit valoir true ou false"),
        "must_name_1_40_characters": (
            "{where} must be a name of 1 to 40 characters",
            "{where} doit être un nom de 1 à 40 caractères",
        ),
        "unknown_sheet_fields": (
            "unknown sheet fields: {unknown}",
            "champs de fiche inconnus : {unknown}",
        ),
        "sheet_required": ("sheet.{key} is required", "sheet.{key} est obligatoire"),
        "options_are_limited_bytes_encoded": (
            "options are limited to {max} bytes encoded ({size} sent)",
            "les options sont limitées à {max} octets encodés ({size} envoyés)",
        ),
        "one_of": ("{where} is one of {choices}", "{where} est l'un de {choices}"),
        "step_shape": (
            "{where} is {{action, target?, options?}}",
            "{where} est {{action, target?, options?}}",
        ),
        "step_action_one_of": (
            "{where}.action is one of {actions}",
            "{where}.action est l'une de {actions}",
        ),
        "target_combatant_id": (
            "{where}.target is a combatant id",
            "{where}.target est un identifiant de combattant",
        ),
        "options_object": ("{where}.options is an object", "{where}.options est un objet"),
        "option_true_false": ("{where} is true or false", "{where} vaut true ou false"),
        "options_declares_only_second_action": (
            "options.{key} declares only a second action, not a third",
            "options.{key} ne déclare qu'une seconde action, pas une troisième",
        ),
        "option_whole_number": ("{where} is a whole number", "{where} est un nombre entier"),
        "whole_number_from": (
            "{where} is a whole number from {low} to {high}",
            "{where} est un nombre entier de {low} à {high}",
        ),
        "text_1_characters": (
            "{where} is a text of 1 to {max_length} characters",
            "{where} est un texte de 1 à {max_length} caractères",
        ),
        "list_most_names": (
            "{where} is a list of at most {max_length} names",
            "{where} est une liste d'au plus {max_length} noms",
        ),
        "takes_only_not": (
            "{where} takes only {choices}, not {bad}",
            "{where} ne prend que {choices}, pas {bad}",
        ),
        "unknown_options": (
            "{what} takes no option {unknown} (it takes: {known})",
            "{what} ne prend pas l'option {unknown} (il prend : {known})",
        ),
        "options_list_stat_codes": (
            "options.{key} is a list of stat codes",
            "options.{key} est une liste de codes de caractéristiques",
        ),
        "options_amount_whole_number_mana": (
            "options.amount is the whole number of mana points given",
            "options.amount est le nombre entier de PM donnés",
        ),
        "rank_one_with_not": (
            "a rank is one of {letters} with + or -, not '{text}'",
            "un rang est l'un de {letters} avec + ou -, pas « {text} »",
        ),
        "unknown_rank_ranks_are": (
            "unknown rank '{text}'; ranks are {letters}",
            "rang « {text} » inconnu ; les rangs sont {letters}",
        ),
        "unknown_table_entry_tables_setting": (
            "unknown table entry '{key}' in the tables setting",
            "entrée de table « {key} » inconnue dans le réglage tables",
        ),
        "table_entry_must_whole_number": (
            "table entry '{key}' must be a whole number",
            "l'entrée de table « {key} » doit être un nombre entier",
        ),
        "table_entry_most_either_way": (
            "table entry '{key}' is at most {max} either way",
            "l'entrée de table « {key} » vaut au plus {max} dans un sens ou l'autre",
        ),
        "sheet_command_seals_whole_number": (
            "sheet.command_seals is a whole number from 0 to {max}",
            "sheet.command_seals est un nombre entier de 0 à {max}",
        ),
        "sheet_must_list_most_16": (
            "sheet.{field} must be a list of at most 16 entries",
            "sheet.{field} doit être une liste d'au plus 16 entrées",
        ),
        "sheet_must_whole_number_from": (
            "sheet.{key} must be a whole number from {low} to {high}",
            "sheet.{key} doit être un nombre entier de {low} à {high}",
        ),
        "sheet_kind_master_servant": (
            "sheet.kind is master or servant",
            "sheet.kind vaut master ou servant",
        ),
        "sheet_boosted_lists_stats_raised": (
            "sheet.boosted lists stats raised to EX by a boost",
            "sheet.boosted liste les caractéristiques portées à EX par un boost",
        ),
        "sheet_elemental_true_for_elemental": (
            "sheet.elemental is true for an Elemental Magic user",
            "sheet.elemental vaut true pour un utilisateur de Magie Élémentaire",
        ),
        "sheet_half_ranks_used_lists": (
            "sheet.half_ranks_used lists stat codes",
            "sheet.half_ranks_used liste des codes de caractéristiques",
        ),
        "each_sheet_needs_name_rank": (
            "each of sheet.{field} needs a name and a rank",
            "chaque entrée de sheet.{field} demande un nom et un rang",
        ),
        "unknown_fields_sheet": (
            "unknown fields in sheet.{field}: {extra}",
            "champs inconnus dans sheet.{field} : {extra}",
        ),
        "stat_required": ("sheet.{stat} is required", "sheet.{stat} est obligatoire"),
        "sheet_class_short_text": ("sheet.class is a short text", "sheet.class est un texte court"),
        "magic_stat_reserved_masters_rk": (
            "the Magic stat is reserved to Masters (RK-55)",
            "la caractéristique Magie est réservée aux Masters (RK-55)",
        ),
        "sheet_master_name_servant_master": (
            "sheet.master is the name of the Servant's Master",
            "sheet.master est le nom du Master du Servant",
        ),
        "item_whole_number": (
            "{field} {item}: {key} is a whole number",
            "{field} {item} : {key} est un nombre entier",
        ),
        "has_no_skill_known": (
            "{actor} has no skill '{name}'; known: {known}",
            "{actor} n'a pas la compétence « {name} » ; connues : {known}",
        ),
        "sheet_skills_must_list_most": (
            "sheet.skills must be a list of at most {max} entries",
            "sheet.skills doit être une liste d'au plus {max} entrées",
        ),
        "two_skills_share_name": (
            "two skills share a name",
            "deux compétences portent le même nom",
        ),
        "each_sheet_skills": (
            "each of sheet.skills is {{name, rank, mode, tours?}}",
            "chaque entrée de sheet.skills est {{name, rank, mode, tours?}}",
        ),
        "each_skill_needs_name_1": (
            "each skill needs a name of 1 to 80 characters",
            "chaque compétence demande un nom de 1 à 80 caractères",
        ),
        "skill_cannot_declared_source_gives": (
            "skill {name}: {extra} cannot be declared: the source gives skills a rank, active or"
            " passive and a duration in Tours, and no numbers for their effects (RK-AMB-26)",
            "compétence {name} : {extra} ne se déclare pas : la source donne aux compétences un"
            " rang, active ou passive et une durée en Tours, et aucun chiffre pour leurs effets"
            " (RK-AMB-26)",
        ),
        "skill_mode_active_passive": (
            "skill {name}: mode is active or passive",
            "compétence {name} : mode vaut active ou passive",
        ),
        "skill_tours_whole_number_1": (
            "skill {name}: tours is a whole number, 1 to {max}",
            "compétence {name} : tours est un nombre entier de 1 à {max}",
        ),
        "skill_passive_skill_always_on": (
            "skill {name}: a passive skill is always on; the source does not say when its Tours"
            " would start",
            "compétence {name} : une compétence passive est toujours active ; la source ne dit"
            " pas quand ses Tours commenceraient",
        ),
        "only_gm_grants_situational_bonus": (
            "only the GM grants a situational bonus or malus",
            "seul le MJ accorde un bonus ou un malus de situation",
        ),
        "then_names_second_action_one": (
            "then names the second action: one of {actions}",
            "then nomme la seconde action : l'une de {actions}",
        ),
        "then_has_only_action_target": (
            "then has only action, target and options",
            "then n'a que action, target et options",
        ),
        "then_options_object_two_actions": (
            "then.options is an object (two actions per turn)",
            "then.options est un objet (deux actions par tour)",
        ),
        "at_bearer_or_shield": ("`at` is bearer or shield", "`at` vaut bearer ou shield"),
        "crit_table_d10_holds_texts": (
            "crit.table_d10 holds texts of at most {max} characters",
            "crit.table_d10 contient des textes d'au plus {max} caractères",
        ),
        "unknown_fields_in": (
            "unknown fields in {where}: {unknown}",
            "champs inconnus dans {where} : {unknown}",
        ),
        "kind_one_of": ("{where}.kind is one of {kinds}", "{where}.kind est l'un de {kinds}"),
        "stat_one_of": (
            "{where}.stat is one of {test_stats}",
            "{where}.stat est l'une de {test_stats}",
        ),
        "armor_levels_list_1_10": (
            "armor.levels is a list of 1 to 10 {{pr, pp}} levels",
            "armor.levels est une liste de 1 à 10 niveaux {{pr, pp}}",
        ),
        "list_most_20_entries": (
            "{name} is a list of at most 20 entries",
            "{name} est une liste d'au plus 20 entrées",
        ),
        "sheet_role_pc_npc": ("sheet.role is PC or NPC", "sheet.role vaut PC ou NPC"),
        "items_names_must_unique": (
            "items names must be unique",
            "les noms des objets doivent être uniques",
        ),
        "piercing_x_y": ("{where}.piercing is [X, Y]", "{where}.piercing vaut [X, Y]"),
        "names_must_unique": (
            "{key} names must be unique",
            "les noms de {key} doivent être uniques",
        ),
        "holds_not_take_hand_first": (
            "{actor} holds {held}, not the {weapon}: take it in hand first (use_item)",
            "{actor} tient {held}, pas {weapon} : prenez-la d'abord en main (use_item)",
        ),
        "unknown_war_command": (
            "unknown War command {command}",
            "commande de Guerre {command} inconnue",
        ),
        "no_character_this_war": (
            "no character '{cid}' in this War",
            "aucun personnage « {cid} » dans cette Guerre",
        ),
        "no_such_war": ("no such War", "cette Guerre n'existe pas"),
        "unknown_mistyped_war_setting": (
            "unknown or mistyped War setting '{key}'",
            "réglage de Guerre « {key} » inconnu ou mal typé",
        ),
        "over_maximum": (
            "{key} {value} is over {character}'s maximum {maximum}",
            "{key} {value} dépasse le maximum {de_character} ({maximum})",
        ),
        "combatant_required": ("a combatant is required", "un combattant est requis"),
        "no_combatant_this_encounter": (
            "no combatant '{combatant_id}' in this encounter",
            "aucun combattant « {combatant_id} » dans cette rencontre",
        ),
        "has_no_resource": (
            "{who} has no resource '{resource}'",
            "{who} n'a pas de ressource « {resource} »",
        ),
    }
)

# --- the server's own errors (server/: `HTTPError`, a webhook URL's `Unsafe`) ------------
# The adapters refuse with a code, one of these reason keys and its parameters, as the
# domain does; tests/unit/test_refusal_words.py collects every key used in server/.
_add(
    {
        # who may ask
        "send_bearer_token": (
            "send Authorization: Bearer <token>",
            "envoyez Authorization: Bearer <jeton>",
        ),
        "send_war_gm_token": (
            "send Authorization: Bearer <the War's GM token>",
            "envoyez Authorization: Bearer <le jeton du MJ de la Guerre>",
        ),
        "token_no_access_encounter": (
            "this token gives no access to this encounter",
            "ce jeton ne donne pas accès à cette rencontre",
        ),
        "token_no_access_war": (
            "this token gives no access to this War",
            "ce jeton ne donne pas accès à cette Guerre",
        ),
        "only_gm_manages_links": (
            "only the GM manages this encounter's links",
            "seul le MJ gère les liens de cette rencontre",
        ),
        "only_war_gm_manages_links": (
            "only the War's GM manages its links",
            "seul le MJ de la Guerre gère ses liens",
        ),
        "audit_bundle_after_close": (
            "the audit bundle is public once the encounter closes",
            "le dossier d'audit devient public une fois la rencontre close",
        ),
        # links
        "player_link_names_combatants": (
            "a player link names one or more combatants",
            "un lien de joueur nomme un ou plusieurs combattants",
        ),
        "gm_link_names_no_combatant": (
            "a gm link names no combatant",
            "un lien de MJ ne nomme aucun combattant",
        ),
        "spectator_link_names_no_combatant": (
            "a spectator link names no combatant",
            "un lien de spectateur ne nomme aucun combattant",
        ),
        "link_cannot_revoke_itself": (
            "the link you are using cannot revoke itself",
            "le lien que vous utilisez ne peut pas se révoquer lui-même",
        ),
        "no_live_link_encounter": (
            "no live link '{token_id}' in this encounter",
            "aucun lien actif « {token_id} » dans cette rencontre",
        ),
        "no_live_link_war": (
            "no live link '{token_id}' in this War",
            "aucun lien actif « {token_id} » dans cette Guerre",
        ),
        # what is not there
        "no_encounter": ("no encounter {encounter}", "aucune rencontre {encounter}"),
        "no_webhook": ("this encounter has no webhook", "cette rencontre n'a pas de webhook"),
        "no_rule_in_digests": (
            "no rule '{rule_id}' in the shipped digests",
            "aucune règle « {rule_id} » dans les résumés fournis",
        ),
        # the request itself
        "body_over_limit": (
            "request bodies are limited to {max} bytes",
            "le corps d'une requête est limité à {max} octets",
        ),
        "body_too_slow": (
            "the request's body did not arrive in {seconds} s",
            "le corps de la requête n'est pas arrivé en {seconds} s",
        ),
        "headers_too_slow": (
            "the request's headers did not arrive in time",
            "les en-têtes de la requête ne sont pas arrivés à temps",
        ),
        "too_many_connections": (
            "too many connections to this server; retry shortly",
            "trop de connexions à ce serveur : réessayez sous peu",
        ),
        "creations_rate_limited": (
            "at most {per_minute} encounters or Wars per minute from one address;"
            " retry in {seconds} s",
            "au plus {per_minute} rencontres ou Guerres par minute depuis une même adresse :"
            " réessayez dans {seconds} s",
        ),
        "malformed_json": ("malformed JSON: {detail}", "JSON mal formé : {detail}"),
        "body_off_schema": ("{detail}", "le corps ne suit pas son schéma : {detail}"),
        "json_nests_too_deep": (
            "JSON nests at most {max} levels",
            "le JSON s'imbrique sur {max} niveaux au plus",
        ),
        "json_nests_too_deep_at": (
            "JSON nests at most {max} levels ({where})",
            "le JSON s'imbrique sur {max} niveaux au plus ({where})",
        ),
        "whole_numbers_only": (
            "{where}: whole numbers only, no fractions",
            "{where} : des nombres entiers seulement, sans fraction",
        ),
        "no_control_characters": (
            "{where}: control characters and line breaks are not allowed",
            "{where} : les caractères de contrôle et les sauts de ligne sont interdits",
        ),
        "no_format_characters": (
            "{where}: invisible and bidirectional formatting characters ({char}) are not allowed",
            "{where} : les caractères de mise en forme invisibles et bidirectionnels ({char})"
            " sont interdits",
        ),
        "param_whole_0_to": (
            "{param} is a whole number from 0 to {max}",
            "{param} est un nombre entier de 0 à {max}",
        ),
        "limit_whole_1_to": (
            "limit is a whole number from 1 to {max}",
            "limit est un nombre entier de 1 à {max}",
        ),
        "idempotency_key_length": (
            "Idempotency-Key must be 1 to 200 characters",
            "Idempotency-Key doit compter de 1 à 200 caractères",
        ),
        "export_format_one_of": (
            "format is one of json, markdown, bbcode, text",
            "format vaut json, markdown, bbcode ou text",
        ),
        "export_scope_all_or_last_turn": (
            "scope is all or last_turn",
            "scope vaut all ou last_turn",
        ),
        "lang_en_or_fr": ("lang is en or fr", "lang vaut en ou fr"),
        "include_hidden_true_or_false": (
            "include_hidden is true or false",
            "include_hidden vaut true ou false",
        ),
        # the War's routes and the 1v1 resolver's fighters (server/http)
        "only_war_gm_may": (
            "only the War's GM may do this",
            "seul le MJ de la Guerre peut faire cela",
        ),
        "war_played_under": (
            "a War is played under {required}, not '{ruleset}'",
            "une Guerre se joue en {required}, pas en « {ruleset} »",
        ),
        "encounter_not_in_this_war": (
            "encounter {encounter} was not fought in this War",
            "la rencontre {encounter} ne s'est pas jouée dans cette Guerre",
        ),
        "fighter_unknown_preset_of": (
            "{side}: unknown preset '{preset}' of {ruleset} ({presets})",
            "{side} : modèle « {preset} » inconnu en {ruleset} ({presets})",
        ),
        "fighter_unknown_preset": (
            "{side}: unknown preset '{preset}'",
            "{side} : modèle « {preset} » inconnu",
        ),
        "fighter_name_1_to_60": (
            "{side}: 'name' is text of 1 to 60 characters",
            "{side} : « name » est un texte de 1 à 60 caractères",
        ),
        "fighter_sheet_unreadable": (
            "{side}: invalid sheet: {detail}",
            "{side} : fiche invalide : {detail}",
        ),
        "resolver_supports_only": (
            "the 1v1 resolver does not support '{ruleset}'; it supports: {supported}",
            "le résolveur 1 contre 1 ne prend pas en charge « {ruleset} » ; il prend en"
            " charge : {supported}",
        ),
        # saving a simulated fight
        "fight_saved_meanwhile": (
            "the fight was saved by someone else meanwhile",
            "le combat a été enregistré par quelqu'un d'autre entre-temps",
        ),
        "seed_names_another_fight": (
            "seed '{seed}' already names another saved fight (other fighters or settings):"
            " choose another seed to save this one",
            "la graine « {seed} » désigne déjà un autre combat enregistré (d'autres"
            " combattants ou réglages) : choisissez une autre graine pour enregistrer celui-ci",
        ),
        # a webhook URL the server will not call (server/webhooks/outbound.py)
        "webhook_url_printable": (
            "a webhook URL is printable ASCII with no spaces, up to 2000 characters",
            "une URL de webhook est en ASCII imprimable, sans espace, de 2000 caractères au plus",
        ),
        "webhook_url_http": (
            "a webhook URL starts with http:// or https://",
            "une URL de webhook commence par http:// ou https://",
        ),
        "webhook_url_host": ("a webhook URL names a host", "une URL de webhook nomme un hôte"),
        "webhook_url_port": (
            "the webhook URL's port is not a number from 1 to 65535",
            "le port de l'URL du webhook n'est pas un nombre de 1 à 65535",
        ),
        "webhook_host_unresolved": (
            "the webhook host does not resolve",
            "l'hôte du webhook ne se résout pas",
        ),
        "webhook_host_not_public": (
            "the webhook host resolves to a loopback, private or link-local address"
            " (the operator may allow it with FRACAS_WEBHOOK_ALLOW)",
            "l'hôte du webhook se résout en une adresse de bouclage, privée ou de lien local"
            " (l'exploitant peut l'autoriser avec FRACAS_WEBHOOK_ALLOW)",
        ),
    }
)

# What only the GM may do (`only_gm_may`'s `what`, as the encounter names it).
GM_ACTS: dict[str, str] = {
    "add combatants": "ajouter des combattants",
    "remove combatants": "retirer des combattants",
    "roll initiative": "lancer l'initiative",
    "start combat": "commencer le combat",
    "adjust resources": "ajuster les ressources",
    "repair armor": "réparer une armure",
    "roll hidden dice": "lancer des dés cachés",
    "undo": "annuler",
    "apply conditions": "appliquer des états",
    "remove conditions": "retirer des états",
    "set the initiative order": "fixer l'ordre d'initiative",
    "continue the fight": "poursuivre le combat",
    "answer disputes": "répondre aux contestations",
    "close the encounter": "clôturer la rencontre",
    "enter physical dice": "saisir des dés physiques",
}
ROLES: dict[str, tuple[str, str]] = {
    "gm": ("the GM", "MJ"),
    "player": ("a player", "joueur"),
    "spectator": ("a spectator", "spectateur"),
}

# What a limited ability is called (`limit_used`'s `ability`), and a limit's scope.
ABILITIES: dict[str, tuple[str, str]] = {
    "attack": ("their attack this turn", "son attaque de ce tour"),
    "second_wind": ("their second wind", "son second souffle"),
    "complex": ("the complex action of this phase", "l'action complexe de cette phase"),
    "parry": ("their parries", "ses parades"),
    "dodge": ("their dodges", "ses esquives"),
    "defense": ("their defenses", "ses défenses"),
}
SCOPES: dict[str, tuple[str, str]] = {
    "turn": ("turn", "tour"),
    "round": ("round", "round"),
    "session": ("session", "session"),
    "campaign": ("War", "Guerre"),
}
DEFENSES: dict[str, tuple[str, str]] = {
    "parry": ("parries", "parades"),
    "dodge": ("dodges", "esquives"),
    "defense": ("defenses", "défenses"),
}
MODES: dict[str, tuple[str, str]] = {
    "melee": ("melee", "de mêlée"),
    "shoot": ("shooting", "de tir"),
    "throw": ("throwing", "de jet"),
}
OUTS: dict[str, tuple[str, str]] = {
    "defeated": ("defeated", "vaincu"),
    "dead": ("dead", "mort"),
    "fled": ("fled", "en fuite"),
    "out_of_mana": ("out of mana", "à court de PM"),
    "removed": ("removed", "retiré"),
}

# What an error code means, for the errors that are not a rule's (the adapters' own).
CODES: dict[str, tuple[str, str]] = {
    "invalid": ("the request does not fit", "la requête ne convient pas"),
    "unauthorized": (
        "no token, or one that gives no access here",
        "jeton absent ou sans accès ici",
    ),
    "forbidden": ("your role may not do this", "votre rôle ne permet pas cela"),
    "not_found": ("no such thing here", "introuvable ici"),
    "method_not_allowed": ("another method is served here", "une autre méthode est servie ici"),
    "too_large": ("the body is over the size limit", "le corps dépasse la taille permise"),
    "timeout": ("the request did not arrive in time", "la requête n'est pas arrivée à temps"),
    "conflict": ("the state changed meanwhile", "l'état a changé entre-temps"),
    "rate_limited": ("too many requests; wait a little", "trop de requêtes : patientez un peu"),
    "unavailable": (
        "the database is out of reach; retry after a few seconds (same Idempotency-Key)",
        "la base de données est injoignable : réessayez dans quelques secondes (même"
        " Idempotency-Key)",
    ),
    "internal": (
        "the server failed on this request; it was logged",
        "le serveur a échoué sur cette requête ; c'est consigné",
    ),
    "idempotency_mismatch": (
        "this Idempotency-Key was used with another body",
        "cette Idempotency-Key a servi pour un autre corps",
    ),
}


class _Formatter(string.Formatter):
    """Fills a template: lists as "a, b", None as nothing."""

    def format_field(self, value: Any, format_spec: str) -> str:
        if isinstance(value, list | tuple | set | frozenset):
            value = ", ".join(str(v) for v in value)
        elif value is None:
            value = ""
        return str(super().format_field(value, format_spec))


_FORMAT = _Formatter()


TYPES: dict[str, tuple[str, str]] = {
    "physical": ("physical", "physique"),
    "magic": ("magic", "magique"),
}
KINDS: dict[str, tuple[str, str]] = {
    "master": ("Master", "Master"),
    "servant": ("Servant", "Servant"),
}
_VOCABS = {"ability": ABILITIES, "scope": SCOPES, "out": OUTS, "mode": MODES, "defense": DEFENSES,
           "type": TYPES, "type_": TYPES, "kind": KINDS, "role": ROLES}  # fmt: skip


def _said(key: str, value: Any, names: Mapping[str, str], fr: bool) -> Any:
    """A parameter as the words say it: a combatant by name, a known term in the language."""
    if key in names:
        return names[key]
    if key == "action" and isinstance(value, str):
        return _action(value, fr)
    if key == "what" and isinstance(value, str) and value in GM_ACTS:
        return GM_ACTS[value] if fr else value
    vocab = _VOCABS.get(key)
    if vocab is not None and isinstance(value, str):
        if key == "ability" and value.startswith("half_rank."):
            stat = value.removeprefix("half_rank.")
            return f"les demi-rangs de {stat} ce RP" if fr else f"the half-ranks of {stat} this RP"
        pair = vocab.get(value)
        if pair is not None:
            return pair[1] if fr else pair[0]
    return value


def _action(code: str, fr: bool) -> str:
    """An action or reaction code as its rule system labels it (the first that knows it)."""
    for rules in REGISTRY.values():
        spec = rules.actions.get(code) or rules.reactions.get(code)
        if spec is not None:
            return spec.label_fr if fr else spec.label
    return code.replace("_", " ")


def word_reason(
    reason: str, params: Mapping[str, Any], names: Mapping[str, str] | None = None
) -> tuple[str, str] | None:
    """(English, French) of `reason` with its parameters, or None if it has no words."""
    pair = WORDS.get(reason)
    if pair is None:
        return None
    named = names or {}
    out: list[str] = []
    for fr, template in ((False, pair[0]), (True, pair[1])):
        values = {k: _said(k, v, named, fr) for k, v in params.items()}
        values |= {f"de_{k}": de(str(v)) for k, v in values.items()}
        out.append(" ".join(_FORMAT.format(template, **values).split()))
    return out[0], out[1]


def word(
    code: str,
    reason: str,
    params: Mapping[str, Any],
    names: Mapping[str, str] | None = None,
    message: str = "",
) -> tuple[str, str]:
    """(English, French) of a refusal or an error: its reason's words, else its code's
    meaning in French beside the English text the adapter gave."""
    said = word_reason(reason, params, names)
    if said is not None:
        return said
    en, fr = CODES.get(code, (code, code))
    return message or en, fr if not message else f"{fr} : {message}"


def said(refusal: Refused) -> tuple[str, str]:
    """(English, French) of a domain refusal."""
    return word(refusal.code, refusal.reason, refusal.params, refusal.names, refusal.message)
