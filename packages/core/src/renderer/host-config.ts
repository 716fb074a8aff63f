import { createContext } from 'react';
import type { HostConfig } from 'react-reconciler';
import { DefaultEventPriority, NoEventPriority } from 'react-reconciler/constants.js';
import { InvalidElementError } from '../components/render-errors.js';
import {
  appendChild,
  HOST_TYPES,
  type HostContainer,
  type HostElement,
  type HostNode,
  type HostProps,
  type HostText,
  type HostType,
  insertBefore,
  noteShapeChange,
  noteUpdate,
  removeChild,
} from './host-tree.js';

type Config = HostConfig<
  HostType,
  HostProps,
  HostContainer,
  HostElement,
  HostText,
  never, // activity instance
  never, // suspense instance
  never, // hydratable instance
  never, // form instance
  HostNode, // public instance
  HostContext,
  never, // child set (mutation mode, no persistence)
  ReturnType<typeof setTimeout>,
  -1,
  null, // transition status
  null, // suspended state
  null, // renderer inspection config
  never, // form state marker instance
  never, // hoistable root
  never // resource
>;

let currentUpdatePriority: number = NoEventPriority;

/** React treats a null host context as missing, so the (unused) context is a constant object. */
type HostContext = { readonly agate: true };
const HOST_CONTEXT: HostContext = { agate: true };

function withoutChildren(props: HostProps): HostProps {
  const { children: _children, ...rest } = props;
  return rest;
}

/**
 * A mutation-mode host config with no DOM: instances are plain objects (see host-tree.ts).
 * Text is only meaningful inside elements; the compiler decides what each element means.
 */
export const hostConfig: Config = {
  rendererPackageName: '@agate/core',
  rendererVersion: '0.1.0',
  extraDevToolsConfig: null,
  bindToConsole: (methodName, args) =>
    // React dims logs from a second render pass; we log plainly.
    (console[methodName as 'log'] as (...a: unknown[]) => void).bind(console, ...args),
  supportsMutation: true,
  supportsPersistence: false,
  supportsHydration: false,
  isPrimaryRenderer: false,
  noTimeout: -1,
  scheduleTimeout: setTimeout,
  cancelTimeout: clearTimeout,
  supportsMicrotasks: true,
  scheduleMicrotask: queueMicrotask,

  createInstance(type, props) {
    if (!HOST_TYPES.has(type)) {
      throw new InvalidElementError(
        `<${String(type)}> is not an Agate host element. Agent trees are built from Agate components ` +
          '(System, Message, Section, Timeline, Tool, Ephemeral, ...) and your own components, not DOM tags.',
      );
    }
    return { kind: 'element', type, props: withoutChildren(props), children: [], parent: null };
  },
  createTextInstance(text) {
    return { kind: 'text', text, parent: null };
  },
  appendInitialChild: appendChild,
  appendChild,
  appendChildToContainer: appendChild,
  insertBefore,
  insertInContainerBefore: insertBefore,
  removeChild,
  removeChildFromContainer: removeChild,
  finalizeInitialChildren: () => false,
  shouldSetTextContent: () => false,
  getRootHostContext: () => HOST_CONTEXT,
  getChildHostContext: (parentContext) => parentContext,
  getPublicInstance: (instance) => instance,
  prepareForCommit: () => null,
  resetAfterCommit(container) {
    container.version += 1;
  },
  preparePortalMount: () => {},
  commitUpdate(instance, _type, _oldProps, newProps) {
    const props = withoutChildren(newProps);
    noteUpdate(instance, props);
    instance.props = props;
  },
  commitTextUpdate(textInstance, _oldText, newText) {
    noteShapeChange();
    textInstance.text = newText;
  },
  resetTextContent: () => {},
  clearContainer(container) {
    noteShapeChange();
    container.children.length = 0;
  },
  // Hidden subtrees (<Activity mode="hidden">, a suspended boundary) stay mounted to keep their
  // state, but the model must not see them: the compiler skips hidden nodes.
  hideInstance(instance) {
    noteShapeChange();
    instance.hidden = true;
  },
  unhideInstance(instance) {
    noteShapeChange();
    instance.hidden = false;
  },
  hideTextInstance(textInstance) {
    noteShapeChange();
    textInstance.hidden = true;
  },
  unhideTextInstance(textInstance) {
    noteShapeChange();
    textInstance.hidden = false;
  },
  getInstanceFromNode: () => null,
  beforeActiveInstanceBlur: () => {},
  afterActiveInstanceBlur: () => {},
  prepareScopeUpdate: () => {},
  getInstanceFromScope: () => null,
  detachDeletedInstance: () => {},

  // React 19 scheduling hooks; a synchronous legacy root only needs sane defaults.
  setCurrentUpdatePriority(priority) {
    currentUpdatePriority = priority;
  },
  getCurrentUpdatePriority: () => currentUpdatePriority,
  resolveUpdatePriority: () =>
    currentUpdatePriority !== NoEventPriority ? currentUpdatePriority : DefaultEventPriority,
  shouldAttemptEagerTransition: () => false,
  trackSchedulerEvent: () => {},
  resolveEventType: () => null,
  resolveEventTimeStamp: () => -1.1,
  requestPostPaintCallback: () => {},
  maySuspendCommit: () => false,
  maySuspendCommitOnUpdate: () => false,
  maySuspendCommitInSyncRender: () => false,
  suspendOnActiveViewTransition: () => {},
  getSuspendedCommitReason: () => null,
  preloadInstance: () => true,
  startSuspendingCommit: () => null,
  suspendInstance: () => {},
  waitForCommitToBeReady: () => null,
  NotPendingTransition: null,
  HostTransitionContext: createContext(null) as unknown as Config['HostTransitionContext'],
  resetFormInstance: () => {},
};
