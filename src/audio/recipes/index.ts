import { chime } from './chime.ts';
import { footstep, jump, land } from './footsteps.ts';
import { crackLine, groan, strike } from './impacts.ts';
import { uiClick, uiConfirm } from './interface.ts';
import type { Recipe } from './recipe.ts';

export * from './recipe.ts';
export * from './impacts.ts';
export * from './footsteps.ts';
export * from './interface.ts';
export * from './chime.ts';

/** Every triggerable sound, by name. */
export const RECIPES = {
  strike,
  /** A crack running along a line of slabs, heard moving across. */
  'crack-line': crackLine,
  groan,
  footstep,
  jump,
  land,
  chime,
  /** A short, bright click for buttons. */
  'ui-click': uiClick,
  /** Two rising notes for confirming a choice. */
  'ui-confirm': uiConfirm,
} as const;

/** The name of a recipe in {@link RECIPES}. */
export type RecipeName = keyof typeof RECIPES;

/** Parameters of each recipe, by name: `RecipeParams<'footstep'>` is `FootstepParams`. */
export type RecipeParams<N extends RecipeName> = (typeof RECIPES)[N] extends Recipe<infer P> ? P : never;

/** Every recipe name. */
export const RECIPE_NAMES = Object.keys(RECIPES) as RecipeName[];

/** Thrown (in development) for a name that is not in {@link RECIPES}. */
export class UnknownRecipeError extends Error {
  /** The name asked for. */
  readonly recipe: string;

  constructor(recipe: string) {
    super(`Unknown sound recipe "${recipe}". Known recipes: ${RECIPE_NAMES.join(', ')}.`);
    this.recipe = recipe;
    this.name = 'UnknownRecipeError';
  }
}

/** Whether `name` names a recipe in {@link RECIPES}. */
export function isRecipeName(name: unknown): name is RecipeName {
  return typeof name === 'string' && Object.prototype.hasOwnProperty.call(RECIPES, name);
}

/** The recipe called `name`, typed with its own parameters: `getRecipe('footstep')` plans `FootstepParams`. */
export function getRecipe<N extends RecipeName>(name: N): (typeof RECIPES)[N];
/**
 * The recipe called `name` (any string, e.g. from a message), or an {@link UnknownRecipeError}.
 * Each `Recipe<P>` is a `Recipe<object>` because `plan` is a method (parameters compared bivariantly).
 */
export function getRecipe(name: string): Recipe<object>;
export function getRecipe(name: string): Recipe<object> {
  if (!isRecipeName(name)) throw new UnknownRecipeError(name);
  return RECIPES[name];
}
