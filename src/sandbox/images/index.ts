export * from './apt-sources.js';
export * from './debian-image.js';
export * from './debian-recipe.js';
export * from './ensure-debian-image.js';
export * from './image-identity.js';
export * from './image-profiles.js';
export * from './installed-packages.js';
export * from './stale-debian-images.js';
