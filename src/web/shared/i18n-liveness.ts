/**
 * The hosted flow's strings for the head-turn challenge (active liveness), in each language,
 * kept apart from i18n.ts's table so the two can change independently; i18n.ts merges them.
 */
const en = {
  livenessHeading: 'Show that you are here',
  livenessIntro: 'We will ask you to turn your head a few times. Keep your face inside the oval.',
  livenessStart: 'Start',
  livenessLookAhead: 'Look straight at the camera.',
  livenessMove_left: 'Turn your head to your left.',
  livenessMove_right: 'Turn your head to your right.',
  livenessMove_up: 'Tilt your head up.',
  livenessDone: 'Thank you. Checking…',
  livenessAlternative: 'I cannot turn my head',
  livenessAlternativeHint: 'Without the head turns, a person from our team checks your selfie instead. It can take longer.',
  livenessRetake: 'We could not see your head turn as asked. Try again in good light and follow each instruction.',
};

/** A key of the challenge's strings. */
export type LivenessMessageKey = keyof typeof en;

/** The challenge's strings, by language. */
export const LIVENESS_MESSAGES: Record<'en' | 'fr' | 'de' | 'es', Record<LivenessMessageKey, string>> = {
  en,
  fr: {
    livenessHeading: 'Montrez que vous êtes là',
    livenessIntro: 'Nous allons vous demander de tourner la tête plusieurs fois. Gardez le visage dans l’ovale.',
    livenessStart: 'Commencer',
    livenessLookAhead: 'Regardez droit vers la caméra.',
    livenessMove_left: 'Tournez la tête vers votre gauche.',
    livenessMove_right: 'Tournez la tête vers votre droite.',
    livenessMove_up: 'Levez la tête.',
    livenessDone: 'Merci. Vérification…',
    livenessAlternative: 'Je ne peux pas tourner la tête',
    livenessAlternativeHint:
      'Sans les mouvements de tête, une personne de notre équipe vérifie votre selfie. Cela peut prendre plus de temps.',
    livenessRetake: 'Nous n’avons pas vu votre tête tourner comme demandé. Réessayez avec une bonne lumière en suivant chaque consigne.',
  },
  de: {
    livenessHeading: 'Zeigen Sie, dass Sie da sind',
    livenessIntro: 'Wir bitten Sie, den Kopf einige Male zu drehen. Halten Sie Ihr Gesicht im Oval.',
    livenessStart: 'Starten',
    livenessLookAhead: 'Schauen Sie direkt in die Kamera.',
    livenessMove_left: 'Drehen Sie den Kopf nach links.',
    livenessMove_right: 'Drehen Sie den Kopf nach rechts.',
    livenessMove_up: 'Heben Sie den Kopf.',
    livenessDone: 'Danke. Wird geprüft…',
    livenessAlternative: 'Ich kann den Kopf nicht drehen',
    livenessAlternativeHint: 'Ohne die Kopfbewegungen prüft eine Person aus unserem Team Ihr Selfie. Das kann länger dauern.',
    livenessRetake:
      'Wir konnten die verlangte Kopfbewegung nicht sehen. Versuchen Sie es bei gutem Licht erneut und folgen Sie jeder Anweisung.',
  },
  es: {
    livenessHeading: 'Demuestre que está aquí',
    livenessIntro: 'Le pediremos que gire la cabeza varias veces. Mantenga la cara dentro del óvalo.',
    livenessStart: 'Empezar',
    livenessLookAhead: 'Mire directamente a la cámara.',
    livenessMove_left: 'Gire la cabeza hacia su izquierda.',
    livenessMove_right: 'Gire la cabeza hacia su derecha.',
    livenessMove_up: 'Levante la cabeza.',
    livenessDone: 'Gracias. Comprobando…',
    livenessAlternative: 'No puedo girar la cabeza',
    livenessAlternativeHint: 'Sin los giros de cabeza, una persona de nuestro equipo revisa su selfie. Puede tardar más.',
    livenessRetake: 'No vimos girar su cabeza como se pidió. Inténtelo de nuevo con buena luz y siga cada instrucción.',
  },
};
