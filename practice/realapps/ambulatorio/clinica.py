"""Clínica Sorriso, the front desk of a small dental clinic in Lisbon, written with Shiny for
Python's ordinary components (UI in European Portuguese): an appointment list (a data grid with
sorting, header filters and row selection, paged eight rows at a time by its own buttons), a
booking form checked on the server, the patient list with a "new patient" dialog that refuses a
NIF already registered, a slow monthly report with a slider, and a long help page with an
accordion. Everything lives in the session: each page load starts from the seed.

    shiny run --host 127.0.0.1 --port PORT clinica.py
"""

import asyncio
import datetime

import pandas as pd
from shiny import App, reactive, render, ui

DENTISTAS = ["Dra. Ana Matos", "Dr. Bruno Pires", "Dra. Carla Sousa"]
ESTADOS = ["Marcada", "Confirmada", "Cancelada"]
TIPOS = ["Consulta", "Limpeza", "Urgência"]
HORAS = ["09:00", "09:30", "10:00", "10:30", "11:00", "11:30", "14:00", "14:30", "15:00", "15:30", "16:00"]
NOMES = ["Joana Ferreira", "Rui Almeida", "Marta Costa", "Tiago Rodrigues", "Inês Martins", "Pedro Gomes",
         "Sofia Lopes", "Miguel Carvalho", "Beatriz Teixeira", "André Ribeiro", "Catarina Pinto", "Hugo Moreira",
         "Leonor Cardoso", "Diogo Fernandes", "Mariana Correia", "Nuno Mendes", "Rita Nunes", "Gonçalo Vieira",
         "Ana Sousa", "Francisco Rocha", "Carolina Dias", "Ricardo Antunes", "Vera Monteiro", "Luís Batista",
         "Filipa Tavares", "João Brito"]
HOJE = datetime.date(2026, 3, 16)
POR_PAGINA = 8


def _agenda() -> pd.DataFrame:
    rows = []
    for n, nome in enumerate(NOMES):
        dia = HOJE + datetime.timedelta(days=n // 4)
        rows.append({"N.º": 101 + n, "Paciente": nome, "Dentista": DENTISTAS[n % 3], "Dia": dia.isoformat(),
                     "Hora": HORAS[(n * 3) % len(HORAS)], "Tipo": TIPOS[(n * 2) % 3 if n % 5 else 1],
                     "Estado": ESTADOS[0 if n % 4 else 1] if n % 7 != 6 else ESTADOS[2]})
    return pd.DataFrame(rows)


def _pacientes() -> pd.DataFrame:
    return pd.DataFrame([{"Nome": nome, "NIF": str(201345670 + n * 1117), "Telefone": f"91{n:02d}{5550 + n * 7:05d}"[:9],
                          "Localidade": ["Lisboa", "Almada", "Oeiras", "Sintra", "Amadora"][n % 5]}
                         for n, nome in enumerate(NOMES[:14])])


AJUDA = [
    ("Como marcar uma consulta?", "No separador «Nova consulta», preencha o nome, o telefone com nove "
     "algarismos, o dentista, o dia e a hora. A clínica não aceita duas consultas do mesmo dentista à mesma hora."),
    ("Como cancelar uma consulta?", "Na «Agenda», selecione a linha da consulta e carregue em «Cancelar consulta»."),
    ("Quem pode ver o relatório?", "Toda a receção; o relatório junta as consultas dos últimos meses."),
    ("O que fazer se o paciente já existe?", "Procure-o pelo nome no separador «Pacientes»: o NIF é único."),
]
REGRAS = [f"{n}. " + texto for n, texto in enumerate([
    "A receção abre às 8h30 e fecha às 19h00, de segunda a sexta-feira.",
    "As consultas de urgência são atendidas por ordem de chegada, depois das marcadas.",
    "Cada consulta dura trinta minutos, salvo indicação do dentista.",
    "As limpezas são feitas na sala 2 e duram quarenta e cinco minutos.",
    "Confirme cada consulta por telefone na véspera e registe a confirmação na agenda.",
    "Um paciente que falte duas vezes sem aviso passa para a lista de espera.",
    "Os menores de dezasseis anos vêm acompanhados por um adulto responsável.",
    "Os pagamentos fazem-se na receção, em numerário, multibanco ou MB Way.",
    "As faturas levam sempre o NIF do paciente; peça-o na primeira visita.",
    "Os seguros aceites estão afixados na porta da receção e no sítio da clínica.",
    "As radiografias são guardadas na ficha do paciente durante dez anos.",
    "Nenhum dado de saúde é enviado por correio eletrónico sem cifra.",
    "Pedidos de segunda via de fatura respondem-se em três dias úteis.",
    "A clínica fecha em agosto, nas duas semanas centrais do mês.",
    "Em caso de dúvida, fale com a Dra. Ana Matos, diretora clínica.",
], start=1)]


def _campo_texto(id_: str, rotulo: str, **attrs) -> ui.Tag:
    """A text field with attributes Shiny's input_text does not take (maxlength, readonly)."""
    return ui.div(ui.tags.label(rotulo, {"for": id_, "class": "control-label"}),
                  ui.tags.input(type="text", id=id_, class_="form-control shiny-input-text", **attrs),
                  class_="form-group shiny-input-container mb-3")


app_ui = ui.page_navbar(
    ui.nav_panel(
        "Agenda",
        ui.layout_columns(
            ui.input_selectize("dentista", "Dentista", ["Todos", *DENTISTAS]),
            ui.input_radio_buttons("estado", "Estado", ["Todas", *ESTADOS], inline=True),
            ui.input_checkbox("so_hoje", "Só as consultas de hoje (16/03)"),
            col_widths=(4, 5, 3),
        ),
        ui.output_data_frame("agenda_tabela"),
        ui.div(
            ui.input_action_button("anterior", "« Anterior", class_="btn-outline-secondary btn-sm", disabled=True),
            ui.output_text("texto_pagina", inline=True),
            ui.input_action_button("seguinte", "Seguinte »", class_="btn-outline-secondary btn-sm"),
            class_="d-flex gap-3 align-items-center my-2",
        ),
        ui.output_ui("selecionada"),
        ui.input_action_button("cancelar", "Cancelar consulta", class_="btn-danger", disabled=True),
        value="agenda",
    ),
    ui.nav_panel(
        "Nova consulta",
        ui.h4("Marcar uma consulta"),
        ui.layout_columns(
            ui.div(
                ui.input_text("nome", "Nome do paciente"),
                _campo_texto("telefone", "Telefone (9 algarismos)", maxlength="9"),
                _campo_texto("codigo", "Código da consulta", readonly="", value="gerado ao marcar"),
                ui.input_numeric("duracao", "Duração (minutos)", 30, min=15, max=120, step=15),
            ),
            ui.div(
                ui.input_select("novo_dentista", "Dentista", DENTISTAS, selectize=False),
                ui.input_date("dia", "Dia", value=HOJE, language="pt", format="dd/mm/yyyy"),
                ui.input_select("hora", "Hora", HORAS, selectize=False),
                ui.input_radio_buttons("tipo", "Tipo", TIPOS, inline=True),
                ui.input_checkbox("primeira", "Primeira visita"),
            ),
        ),
        ui.input_text_area("obs", "Observações", rows=2),
        ui.div(ui.input_action_button("marcar", "Marcar consulta", class_="btn-primary"),
               ui.input_action_button("limpar", "Limpar", class_="btn-outline-secondary"), class_="d-flex gap-2"),
        ui.output_ui("resultado"),
        value="nova",
    ),
    ui.nav_panel(
        "Pacientes",
        ui.div(ui.input_text("procurar", "Procurar pelo nome", placeholder="ex.: Costa"),
               ui.input_action_button("novo_paciente", "Novo paciente", class_="btn-success mt-2"),
               class_="d-flex gap-3 align-items-start"),
        ui.output_data_frame("pacientes_tabela"),
        ui.output_text("contagem"),
        value="pacientes",
    ),
    ui.nav_panel(
        "Relatório",
        ui.input_slider("meses", "Meses a incluir", min=1, max=12, value=3),
        ui.input_select("agrupar", "Agrupar por", ["Dentista", "Tipo", "Estado"], selectize=False),
        ui.input_action_button("report_gerar", "Gerar relatório", class_="btn-primary"),
        ui.output_ui("relatorio"),
        value="relatorio",
    ),
    ui.nav_panel(
        "Ajuda",
        ui.h4("Ajuda da receção", id="topo"),
        ui.accordion(*[ui.accordion_panel(p, r) for p, r in AJUDA], id="faq", open=False),
        ui.h5("Regras da casa", class_="mt-4"),
        *[ui.p(r, style="margin-bottom:2.2rem") for r in REGRAS],
        ui.a("Voltar ao topo", href="#topo", id="voltar"),
        value="ajuda",
    ),
    title="Clínica Sorriso",
    id="separador",
    lang="pt",
)


def server(input, output, session):
    agenda = reactive.value(_agenda())
    pacientes = reactive.value(_pacientes())
    pagina = reactive.value(0)

    @reactive.calc
    def filtrada():
        df = agenda.get()
        if input.dentista() != "Todos":
            df = df[df["Dentista"] == input.dentista()]
        if input.estado() != "Todas":
            df = df[df["Estado"] == input.estado()]
        if input.so_hoje():
            df = df[df["Dia"] == HOJE.isoformat()]
        return df

    def paginas() -> int:
        return max(1, -(-len(filtrada()) // POR_PAGINA))

    @reactive.effect
    @reactive.event(input.dentista, input.estado, input.so_hoje)
    def _volta_ao_inicio():
        pagina.set(0)

    @reactive.effect
    def _botoes():
        ui.update_action_button("anterior", disabled=pagina.get() == 0)

    @reactive.effect
    @reactive.event(input.anterior)
    def _anterior():
        pagina.set(max(0, pagina.get() - 1))

    @reactive.effect
    @reactive.event(input.seguinte)
    def _seguinte():
        pagina.set(min(paginas() - 1, pagina.get() + 1))  # on the last page it stays there

    @render.text
    def texto_pagina():
        return f"Página {pagina_atual() + 1} de {paginas()} ({len(filtrada())} consultas)"

    def pagina_atual() -> int:
        return min(pagina.get(), paginas() - 1)

    @render.data_frame
    def agenda_tabela():
        inicio = pagina_atual() * POR_PAGINA
        return render.DataGrid(filtrada().iloc[inicio:inicio + POR_PAGINA], selection_mode="row",
                               filters=True, width="100%")

    @reactive.calc
    def escolhida():
        linhas = agenda_tabela.cell_selection()["rows"]
        if not linhas:
            return None
        return agenda_tabela.data_view(selected=True).iloc[0]

    @reactive.effect
    def _cancelar_ativo():
        linha = escolhida()
        ui.update_action_button("cancelar", disabled=linha is None or linha["Estado"] == "Cancelada")

    @render.ui
    def selecionada():
        linha = escolhida()
        if linha is None:
            return ui.p("Nenhuma consulta selecionada.", class_="text-muted")
        return ui.p(f"Consulta selecionada: n.º {linha['N.º']}, {linha['Paciente']}, {linha['Dia']} às {linha['Hora']}.")

    @reactive.effect
    @reactive.event(input.cancelar)
    def _cancela():
        linha = escolhida()
        if linha is None:
            return
        df = agenda.get().copy()
        df.loc[df["N.º"] == linha["N.º"], "Estado"] = "Cancelada"
        agenda.set(df)
        ui.notification_show(f"Consulta n.º {linha['N.º']} cancelada.", type="warning", duration=None)

    mensagem = reactive.value(None)

    @reactive.effect
    @reactive.event(input.marcar)
    def _marcar():
        nome, tel = input.nome().strip(), input.telefone().strip()
        erros = []
        if not nome:
            erros.append("Indique o nome do paciente.")
        if not (tel.isdigit() and len(tel) == 9):
            erros.append("O telefone tem de ter nove algarismos.")
        dur = input.duracao()
        if dur is None or not 15 <= dur <= 120:
            erros.append("A duração vai de 15 a 120 minutos.")
        dia = input.dia()
        if dia is None or dia.weekday() >= 5:
            erros.append("A clínica não abre ao fim de semana.")
        df = agenda.get()
        if not erros and ((df["Dentista"] == input.novo_dentista()) & (df["Dia"] == dia.isoformat())
                          & (df["Hora"] == input.hora()) & (df["Estado"] != "Cancelada")).any():
            erros.append(f"{input.novo_dentista()} já tem uma consulta a {dia:%d/%m} às {input.hora()}.")
        if erros:
            mensagem.set(ui.div(*[ui.div(e) for e in erros], class_="alert alert-danger mt-3"))
            return
        numero = int(df["N.º"].max()) + 1
        agenda.set(pd.concat([df, pd.DataFrame([{
            "N.º": numero, "Paciente": nome, "Dentista": input.novo_dentista(), "Dia": dia.isoformat(),
            "Hora": input.hora(), "Tipo": input.tipo(), "Estado": "Marcada"}])], ignore_index=True))
        ui.update_text("codigo", value=f"C-{numero}")
        mensagem.set(ui.div(f"Consulta n.º {numero} marcada para {dia:%d/%m} às {input.hora()}.",
                            class_="alert alert-success mt-3"))
        ui.notification_show(f"Consulta n.º {numero} marcada.", duration=None)

    @reactive.effect
    @reactive.event(input.limpar)
    def _limpar():
        ui.update_text("nome", value="")
        ui.update_text("telefone", value="")
        ui.update_text_area("obs", value="")
        ui.update_numeric("duracao", value=30)
        ui.update_checkbox("primeira", value=False)
        mensagem.set(None)

    @render.ui
    def resultado():
        return mensagem.get()

    @render.data_frame
    def pacientes_tabela():
        df = pacientes.get()
        termo = input.procurar().strip().lower()
        if termo:
            df = df[df["Nome"].str.lower().str.contains(termo, regex=False)]
        return render.DataGrid(df, width="100%")

    @render.text
    def contagem():
        return f"{len(pacientes.get())} pacientes registados."

    erro = reactive.value("")

    @render.ui
    def erro_paciente():
        return ui.div(erro.get(), class_="text-danger") if erro.get() else None

    def _dialogo() -> ui.Tag:
        return ui.modal(
            ui.input_text("p_nome", "Nome"),
            ui.input_text("p_nif", "NIF"),
            ui.input_select("p_local", "Localidade", ["Lisboa", "Almada", "Oeiras", "Sintra", "Amadora"]),
            ui.output_ui("erro_paciente"),
            title="Novo paciente",
            footer=ui.div(ui.input_action_button("guardar_paciente", "Guardar", class_="btn-primary"),
                          ui.modal_button("Cancelar"), class_="d-flex gap-2"),
            easy_close=True,
        )

    @reactive.effect
    @reactive.event(input.novo_paciente)
    def _abrir():
        erro.set("")
        ui.modal_show(_dialogo())

    @reactive.effect
    @reactive.event(input.guardar_paciente)
    def _guardar():
        nome, nif = input.p_nome().strip(), input.p_nif().strip()
        df = pacientes.get()
        if not nome or not (nif.isdigit() and len(nif) == 9):
            erro.set("Indique o nome e um NIF de nove algarismos.")
            return
        if (df["NIF"] == nif).any():
            erro.set(f"Já existe um paciente com o NIF {nif}.")
            return
        pacientes.set(pd.concat([df, pd.DataFrame([{"Nome": nome, "NIF": nif, "Telefone": "",
                                                     "Localidade": input.p_local()}])], ignore_index=True))
        ui.modal_remove()
        ui.notification_show(f"Paciente {nome} registado.", duration=None)

    relatorio_feito = reactive.value(ui.p("Ainda não foi gerado nenhum relatório.", class_="text-muted mt-3"))

    @render.ui
    def relatorio():
        return relatorio_feito.get()

    @reactive.effect
    @reactive.event(input.report_gerar)
    async def _gerar():
        await asyncio.sleep(3)  # the clinic's reporting database answers slowly
        df = agenda.get()
        col = input.agrupar()
        por_grupo = df.groupby(col).size()
        relatorio_feito.set(ui.div(
            ui.h5(f"Consultas dos últimos {input.meses()} meses, por {col.lower()}", class_="mt-3"),
            ui.tags.ul(*[ui.tags.li(f"{k}: {v}") for k, v in por_grupo.items()])))


app = App(app_ui, server)
