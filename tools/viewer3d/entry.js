// The part of three.js the 3D replay page of `kairos view` uses, exported as the page's global
// `THREE` by build.mjs. Add an export here when the page needs one, then run `node build.mjs`.
export {
  WebGLRenderer,
  Scene,
  PerspectiveCamera,
  Color,
  ColorManagement,
  LinearSRGBColorSpace,
  BufferGeometry,
  BufferAttribute,
  ShaderMaterial,
  MeshLambertMaterial,
  MeshBasicMaterial,
  LineBasicMaterial,
  Mesh,
  LineSegments,
  Group,
  HemisphereLight,
  DirectionalLight,
  Vector2,
  Vector3,
  Quaternion,
  Matrix4,
  Raycaster,
  DynamicDrawUsage,
  DoubleSide,
} from "three";
export { OrbitControls } from "three/addons/controls/OrbitControls.js";
export { ConvexGeometry } from "three/addons/geometries/ConvexGeometry.js";
